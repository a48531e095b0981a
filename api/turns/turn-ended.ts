import { WorkflowNotFoundError, type WorkflowClient, type WorkflowExecutionStatusName } from '@temporalio/client';
import { turnIdFor } from '../../core/turn/contracts';

/**
 * Whether a turn the database shows in flight (rows past the committed turns, no failure row) has in fact ended.
 * The database cannot tell: a turn terminated by an operator writes nothing, nor did, before the failure rows of
 * e185c19, one failed by an operator or timed out on its last attempt. Nor does a time bound: approvals and held
 * tool calls each wait up to 2^31 ms, a turn may run up to MCP_TOOL_MAX_LOOPS of them, and a paused activity waits
 * for as long as an operator leaves it paused. So Temporal, which runs the turn, is asked. Both readers use this:
 * the API's lastTurn (api/db-queries.ts) and `conversations prune` (db/repositories/retention.ts).
 */
export interface EndedTurn {
  /** `TURN_<Temporal status>` (TURN_TERMINATED, TURN_TIMED_OUT, …), or TURN_GONE when Temporal no longer has it. */
  failureType: string;
}

/** Closed: a PAUSED workflow (Temporal's workflow pause) and a status this SDK cannot name are not ended. */
const ENDED: ReadonlySet<WorkflowExecutionStatusName> = new Set([
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TERMINATED',
  'TIMED_OUT',
  'CONTINUED_AS_NEW',
]);

/** Asks Temporal about a turn's workflow: how it ended, or null while it runs. */
export type TurnEndReader = (conversationId: string, turnNumber: number) => Promise<EndedTurn | null>;

/**
 * Reads the latest run of the turn's workflow (a retried turn runs again under the same id). A turn Temporal does
 * not know has ended long since (its history passed the namespace's retention): the turn's rows exist, so it was
 * started. When Temporal cannot answer, it throws: a caller keeps the turn in flight.
 */
export function temporalTurnEnds(client: Pick<WorkflowClient, 'getHandle'>): TurnEndReader {
  return async (conversationId, turnNumber) => {
    try {
      const { status } = await client.getHandle(turnIdFor(conversationId, turnNumber)).describe();
      return ENDED.has(status.name) ? { failureType: `TURN_${status.name}` } : null;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { failureType: 'TURN_GONE' };
      throw err;
    }
  };
}
