import { status as GrpcStatus } from '@grpc/grpc-js';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { noWorkerPolling, noWorkerRuns, readTurnPollers, type TurnPollers } from '../../observability/turn-pollers';
import { PARKED_MEMO_KEY, turnProgressQuery, type ParkedCall, type TurnProgress } from '../../workflows/messages';
import { PARKED_STATUSES } from '../console/ports';
import { ApiError } from '../errors';

/** How long a turn's progress query waits for its worker: one that is there answers in milliseconds. */
export const TURN_QUERY_DEADLINE_MS = 5_000;

/** A turn's worker is needed and none answers: the API's 503, `convengine sre`'s exit 1. */
export class WorkerUnavailableError extends ApiError {
  constructor(message: string, details: Record<string, unknown>) {
    super(503, 'WORKER_UNAVAILABLE', message, details);
    this.name = 'WorkerUnavailableError';
  }
}

/**
 * A turn's worker is polling but knows too few of the turn workflow's patches for the turn (a worker of an older build
 * after a rollback): it fails each of the turn's workflow tasks, so a decision sent would be dropped unapplied.
 */
export class WorkerLacksPatchError extends ApiError {
  constructor(message: string, details: Record<string, unknown>) {
    super(503, 'WORKER_LACKS_PATCH', message, details);
    this.name = 'WorkerLacksPatchError';
  }
}

/**
 * `taskQueue`'s pollers (observability/turn-pollers.ts, the reader readiness uses too), or null when Temporal did not
 * say: the caller then goes on as if it had not asked.
 */
export async function turnPollersOrNull(client: Client, taskQueue: string): Promise<TurnPollers | null> {
  return readTurnPollers(client.connection, client.options.namespace, taskQueue).catch(() => null);
}

/** Why no worker can take a turn of `workflowType` on `taskQueue` now, or null when one can, or Temporal did not say. */
export async function noWorkerFor(client: Client, taskQueue: string, workflowType: string): Promise<string | null> {
  const pollers = await turnPollersOrNull(client, taskQueue);
  return pollers && noWorkerRuns(pollers, taskQueue, workflowType);
}

/** The first gRPC status code in an error's cause chain (the SDK wraps the server's answer). */
function grpcCodeOf(err: unknown): number | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

/** Why a query failed for want of a worker, or null when it failed for another reason. */
function unanswered(err: unknown, taskQueue: string): string | null {
  const code = grpcCodeOf(err);
  // Temporal's server refuses a query at once when no worker polled the queue lately ("no poller seen").
  if (code === GrpcStatus.FAILED_PRECONDITION) return noWorkerPolling(taskQueue);
  if (code === GrpcStatus.DEADLINE_EXCEEDED || code === GrpcStatus.CANCELLED) {
    return `no worker answered within ${TURN_QUERY_DEADLINE_MS / 1000} s (task queue ${taskQueue})`;
  }
  return null;
}

/** A turn's progress, or why it cannot be read now (no worker runs the query). */
export type ProgressRead = { progress: TurnProgress } | { unavailable: string };

/** What a listed turn waits on, or why it cannot be read now (a turn parked before its memo said, and no worker). */
export type ParkedRead = { parked: ParkedCall } | { unavailable: string };

/**
 * Where a listed turn runs (its run, task queue and workflow type) and what Temporal's visibility or describe tells of
 * it without a worker: its memo (decoded) and its TurnOutcome.
 */
export type ListedTurn = Pick<WorkflowExecutionInfo, 'runId' | 'taskQueue' | 'type' | 'memo'> & {
  outcome: string | undefined;
};

const NOT_PARKED: ParkedCall = { pending: null, held: null };

const isCallOrNull = (value: unknown): boolean => value === null || (typeof value === 'object' && value !== null);

/**
 * What the turn waits on as its memo says (workflows/park.ts records it as the turn parks and clears it as it resumes),
 * with no worker asked: nothing once its TurnOutcome no longer says it waits. Undefined for a turn parked by a worker
 * before the memo (PARKED_MEMO_PATCH), which only its worker can tell.
 */
export function parkedInMemo(turn: Pick<ListedTurn, 'memo' | 'outcome'>): ParkedCall | undefined {
  const memo = turn.memo?.[PARKED_MEMO_KEY];
  if (typeof memo === 'object' && memo !== null) {
    const { pending, held } = memo as Partial<ParkedCall>;
    if (isCallOrNull(pending) && isCallOrNull(held)) return { pending: pending ?? null, held: held ?? null };
  }
  return PARKED_STATUSES.some((status) => status === turn.outcome) ? undefined : NOT_PARKED;
}

/**
 * The turn's progress query (workflows/messages.ts), which only a worker can answer: not asked when no worker
 * polling the turn's task queue runs its type, and given up after TURN_QUERY_DEADLINE_MS. Null when there is no
 * such turn. Only for a turn parked before its memo said what it waits on (parkedInMemo): a query answered on a task
 * that schedules a quick local activity can split the history so that it no longer replays.
 */
async function readProgress(client: Client, workflowId: string, turn: ListedTurn): Promise<ProgressRead | null> {
  const handle = client.workflow.getHandle(workflowId, turn.runId);
  const { taskQueue, type } = turn;
  try {
    const noWorker = await noWorkerFor(client, taskQueue, type);
    if (noWorker !== null) return { unavailable: noWorker };
    try {
      return {
        progress: await client.withDeadline(Date.now() + TURN_QUERY_DEADLINE_MS, () => handle.query(turnProgressQuery)),
      };
    } catch (err) {
      const why = unanswered(err, taskQueue);
      if (why === null) throw err;
      return { unavailable: why };
    }
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/**
 * What the turn waits on: from its memo, or for a turn parked before it (parkedInMemo) from its worker. Null when
 * there is no such turn.
 */
export async function readParked(client: Client, workflowId: string, turn: ListedTurn): Promise<ParkedRead | null> {
  const inMemo = parkedInMemo(turn);
  if (inMemo) return { parked: inMemo };
  const read = await readProgress(client, workflowId, turn);
  if (!read || 'unavailable' in read) return read;
  return { parked: { pending: read.progress.pending, held: read.progress.held ?? null } };
}

/**
 * Reads what the turns a visibility listing gives wait on, one after another (the held turns, the turns awaiting
 * approval): from their memos, with no worker asked. Only a turn parked before its memo said (parkedInMemo) is asked
 * its worker; a queue and turn type whose worker did not answer one query is not asked again: each would wait as
 * long. Whether a worker can answer depends on the queue and on the turn's type (an older build runs older types).
 */
export function listedParkedReader(
  client: Client
): (workflowId: string, listed: ListedTurn) => Promise<ParkedRead | null> {
  const silent = new Map<string, string>();
  return async (workflowId, listed) => {
    const runsOn = `${listed.taskQueue} ${listed.type}`;
    const known = silent.get(runsOn);
    if (known !== undefined && parkedInMemo(listed) === undefined) return { unavailable: known };
    const read = await readParked(client, workflowId, listed);
    if (read && 'unavailable' in read) silent.set(runsOn, read.unavailable);
    return read;
  };
}

/** The 503 for a turn whose details only its worker can give, and no worker answers. */
export function progressUnavailable(workflowId: string, why: string): WorkerUnavailableError {
  return new WorkerUnavailableError(`Cannot read what turn ${workflowId} waits on: ${why}.`, { workflowId });
}
