import { WorkflowNotFoundError, type WorkflowClient } from '@temporalio/client';
import { turnIdFor } from '../../core/turn/contracts';
import type { Database } from '../../db/pool';
import {
  erasedTurns,
  eraseConversationRows,
  namedInDatabase,
  recordTemporalErasure,
  unendedTurn,
} from '../../db/repositories/erasure';
import type { ErasedRows } from '../../db/repositories/erasure';
import { conversationTurnsQuery, onTaskQueue } from '../../workflows/search-attributes';
import { ApiError, conflict, notFound } from '../errors';
import { describeOwnOrNull } from './decisions';
import { temporalTurnEnds } from './turn-ended';

/**
 * The deployment's Temporal: its client, and its task queue (TEMPORAL_TASK_QUEUE). A namespace may hold another
 * deployment's turns of the same conversation id (docs/operations.md), which are not this erase's to end or delete.
 */
export interface ErasureTemporal {
  workflow: WorkflowClient;
  taskQueue: string;
}

export interface ErasureRequest {
  /** Lower-case UUID (the caller has checked it is one). */
  conversationId: string;
  /** Terminate a turn in flight first, instead of refusing (409 TURN_IN_PROGRESS). */
  terminate: boolean;
  /** Who asked, for the accountability record: `api`, `cli:<user>`. */
  erasedBy: string;
  /**
   * Retire an id nothing names yet (a privacy request for a conversation that may arrive later), instead of refusing
   * it (404 CONVERSATION_NOT_FOUND: a mistyped id is not retired for good).
   */
  retireUnknown?: boolean;
}

export interface ErasureReport {
  rows: ErasedRows;
  /** Turn workflow executions deleted from Temporal. */
  executionsDeleted: number;
  /** What Temporal still holds, and why (run the erase again once it answers); null when nothing. */
  temporalRemaining: string | null;
}

const unreachable = (conversationId: string, turn: number, why: string) =>
  new ApiError(
    503,
    'TEMPORAL_UNREACHABLE',
    `Turn ${turn} of conversation ${conversationId} may still run, and Temporal did not answer whether it does ` +
      `(${why}); nothing was erased.`
  );

/**
 * Erases one conversation (a data subject's request): every database row naming it and the claim bodies only it
 * stored, in one transaction that also retires the id (410 CONVERSATION_RETIRED afterwards) and records who erased
 * it and what went; then its turn workflow executions from Temporal. The Temporal part can be run again (an erase of
 * an erased id does only that part): when Temporal does not answer, the report and the record say what remains.
 */
export async function eraseConversation(
  db: Database,
  temporal: ErasureTemporal | null,
  request: ErasureRequest
): Promise<ErasureReport> {
  const { conversationId } = request;
  if (!request.retireUnknown) await refuseUnknown(db, temporal, conversationId);
  const ended = await endedInFlightTurn(db, temporal, request);
  const rows = await eraseConversationRows(db, conversationId, { ended, erasedBy: request.erasedBy });
  if ('inFlight' in rows) throw turnInFlight(conversationId, rows.inFlight);
  const turns = Math.max(rows.turns, await erasedTurns(db, conversationId));
  let executionsDeleted = 0;
  let temporalRemaining: string | null = null;
  try {
    if (!temporal) throw new Error('no Temporal client');
    executionsDeleted = await deleteTurnExecutions(temporal, conversationId, turns);
  } catch (err) {
    temporalRemaining =
      `the turn workflow executions turn-${conversationId}-* (their histories hold the conversation's text until ` +
      `the namespace's retention): Temporal did not answer (${err instanceof Error ? err.message : String(err)})`;
  }
  await recordTemporalErasure(db, conversationId, temporalRemaining);
  return { rows, executionsDeleted, temporalRemaining };
}

/**
 * Refuses (404 CONVERSATION_NOT_FOUND) an id the database does not know (not retired, no row names it) and of which
 * Temporal has no turn run on the deployment's task queue: its first turn, started before it writes a row, or any
 * turn visibility lists. While Temporal does not answer, such an id is refused with 503 TEMPORAL_UNREACHABLE.
 */
async function refuseUnknown(db: Database, temporal: ErasureTemporal | null, conversationId: string) {
  if (await namedInDatabase(db, conversationId)) return;
  let ran: boolean;
  try {
    if (!temporal) throw new Error('no Temporal client');
    ran = await hasOwnTurnRun(temporal, conversationId);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ApiError(
      503,
      'TEMPORAL_UNREACHABLE',
      `No row names conversation ${conversationId}, and Temporal did not answer whether it ran a turn of it (${why}); ` +
        'nothing was erased. Erase again once it answers, or with retireUnknown to retire the id all the same.'
    );
  }
  if (!ran) {
    throw notFound(
      'CONVERSATION_NOT_FOUND',
      `No conversation ${conversationId}: nothing names it and it is not retired; nothing was erased. Erase with ` +
        'retireUnknown to retire the id before it is used.'
    );
  }
}

async function hasOwnTurnRun({ workflow, taskQueue }: ErasureTemporal, conversationId: string): Promise<boolean> {
  if (await describeOwnOrNull(workflow.getHandle(turnIdFor(conversationId, 1)), taskQueue)) return true;
  const query = onTaskQueue(conversationTurnsQuery(conversationId), taskQueue);
  for await (const _ of workflow.list({ query, pageSize: 1 })) return true;
  return false;
}

/** The in-flight turn Temporal says has ended (or that `terminate` ended), or null when the rows show none. */
async function endedInFlightTurn(db: Database, temporal: ErasureTemporal | null, request: ErasureRequest) {
  const { conversationId } = request;
  const turn = await unendedTurn(db.$client, conversationId);
  if (turn === null) return null;
  if (!temporal) throw unreachable(conversationId, turn, 'no Temporal client');
  let end: object | null;
  let own: Awaited<ReturnType<typeof describeOwnOrNull>>;
  try {
    // Another deployment's run under the turn's id reads as ended (TURN_GONE): it is never terminated from here.
    end = await temporalTurnEnds(temporal.workflow, temporal.taskQueue)(conversationId, turn);
    own = end
      ? null
      : await describeOwnOrNull(temporal.workflow.getHandle(turnIdFor(conversationId, turn)), temporal.taskQueue);
  } catch (err) {
    throw unreachable(conversationId, turn, err instanceof Error ? err.message : String(err));
  }
  // Running on another deployment's queue, the workflow id's run is not this turn: this deployment's has ended.
  if (end || !own) return turn;
  if (!request.terminate) throw turnInFlight(conversationId, turn);
  await temporal.workflow.getHandle(own.workflowId, own.runId).terminate('conversation erased');
  return turn;
}

const turnInFlight = (conversationId: string, turn: number) =>
  conflict(
    'TURN_IN_PROGRESS',
    `Turn ${turn} of conversation ${conversationId} is in flight (running, waiting for an approval or holding a tool ` +
      'call); nothing was erased. Erase with terminate to end it first.',
    { workflowId: turnIdFor(conversationId, turn) }
  );

/**
 * Deletes every run of the conversation's turn workflows on the deployment's task queue: those visibility lists (by
 * the ConversationId search attribute every turn starts with) and the current runs of turn-<id>-1 …
 * turn-<id>-<turns>, which visibility may not list yet, when they are on that queue. Another deployment's runs of the
 * same ids on a shared namespace are its own conversation's, and stay. One already gone counts as done, so a second
 * erase finishes what the first could not.
 */
async function deleteTurnExecutions(temporal: ErasureTemporal, conversationId: string, turns: number): Promise<number> {
  const { workflow, taskQueue } = temporal;
  const runs = new Map<string, { workflowId: string; runId: string }>();
  const query = onTaskQueue(conversationTurnsQuery(conversationId), taskQueue);
  for await (const execution of workflow.list({ query })) {
    runs.set(`${execution.workflowId}/${execution.runId}`, {
      workflowId: execution.workflowId,
      runId: execution.runId,
    });
  }
  const listed = new Set([...runs.values()].map((run) => run.workflowId));
  for (let turn = 1; turn <= turns; turn++) {
    const workflowId = turnIdFor(conversationId, turn);
    // Its current run, when visibility does not list the turn (yet): a real server lists it only a moment later.
    if (listed.has(workflowId)) continue;
    const own = await describeOwnOrNull(workflow.getHandle(workflowId), taskQueue);
    if (own) runs.set(`${workflowId}/${own.runId}`, { workflowId, runId: own.runId });
  }
  let deleted = 0;
  for (const execution of runs.values()) {
    try {
      await workflow.workflowService.deleteWorkflowExecution({
        namespace: workflow.options.namespace,
        workflowExecution: execution,
      });
      deleted++;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return deleted;
}

/** gRPC NOT_FOUND (5): the execution is gone already. */
const isNotFound = (err: unknown) =>
  err instanceof WorkflowNotFoundError || (err as { code?: number } | null)?.code === 5;
