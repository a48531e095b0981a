import { type WorkflowClient, type WorkflowExecutionStatusName, type WorkflowHandle } from '@temporalio/client';
import { describeOwnOrNull } from './decisions';
import { endedRunFailure, type TurnFailure } from './ended-run';
import { rootFailure } from './outcome';
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
  /**
   * A failed turn's failure type as its POST answered it (INTERNAL, LLM_CALL_FAILED, …); else `TURN_<Temporal status>`
   * (TURN_TERMINATED, TURN_TIMED_OUT, …), or TURN_GONE when Temporal no longer has it.
   */
  failureType: string;
  /** As the POST answered a failed turn; false for any other end: an operator may have ended the turn on purpose. */
  retryable: boolean;
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
 * Reads the latest run of the turn's workflow (a retried turn runs again under the same id), when it is this
 * deployment's (on `taskQueue`). A turn Temporal does not know has ended long since (its history passed the
 * namespace's retention): the turn's rows exist, so it was started. So has one whose id now names another
 * deployment's run (a namespace shared with it): only one run of an id is open at a time, and that one is not this
 * deployment's, whose state and failure it must not report. When Temporal cannot answer, it throws: a caller keeps
 * the turn in flight.
 */
export function temporalTurnEnds(client: Pick<WorkflowClient, 'getHandle'>, taskQueue: string): TurnEndReader {
  return async (conversationId, turnNumber) => {
    const handle = client.getHandle(turnIdFor(conversationId, turnNumber));
    const description = await describeOwnOrNull(handle, taskQueue);
    if (!description) return endedTurn(endedRunFailure('GONE'));
    const { status } = description;
    if (status.name === 'FAILED') return failedTurn(handle);
    return ENDED.has(status.name) ? endedTurn(endedRunFailure(status.name)) : null;
  };
}

/**
 * A turn that failed without its failure row (the database was down when its step and TurnFailure tried to write it):
 * its failure as Temporal recorded it, shown as the POST shows it (outcome.ts), so that both say the same.
 */
async function failedTurn(handle: WorkflowHandle): Promise<EndedTurn> {
  const failure = await handle.result().then(
    () => null,
    (err: unknown) => err
  );
  if (failure === null) return { failureType: 'TURN_FAILED', retryable: false };
  return endedTurn(rootFailure(failure));
}

const endedTurn = ({ type, retryable }: TurnFailure): EndedTurn => ({ failureType: type, retryable });
