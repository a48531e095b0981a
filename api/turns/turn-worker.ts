import { status as GrpcStatus } from '@grpc/grpc-js';
import { WorkflowNotFoundError, type Client, type ConnectionLike } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { turnProgressQuery, type TurnProgress } from '../../workflows/messages';
import { ApiError } from '../errors';
import { epochMs } from '../history/entries';

/**
 * How recently a poller must have polled a task queue to count as a worker. A live idle worker polls again each
 * time a long poll ends (a minute on Temporal's server, 55 s on our dev server), and Temporal keeps listing a
 * poller for minutes after its worker went away, so a worker gone for less than this still counts: what is sent
 * to it then waits for the deadline of whoever sent it. Both clocks are assumed to agree to within seconds.
 */
export const WORKER_SEEN_WITHIN_MS = 70_000;

/** How long the poller check may take; past it, the caller goes on as if it had not asked. */
const WORKER_CHECK_DEADLINE_MS = 2_000;

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
 * Whether a worker polls `taskQueue` (workflow tasks): true when one polled within WORKER_SEEN_WITHIN_MS, false
 * when none did, null when Temporal did not say within WORKER_CHECK_DEADLINE_MS (or refused to).
 */
export async function workerPolls(
  connection: Pick<ConnectionLike, 'workflowService' | 'withDeadline'>,
  namespace: string,
  taskQueue: string
): Promise<boolean | null> {
  const now = Date.now();
  try {
    const described = await connection.withDeadline(now + WORKER_CHECK_DEADLINE_MS, () =>
      connection.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      })
    );
    return recentPollers(described.pollers ?? [], now).length > 0;
  } catch {
    return null;
  }
}

/** The pollers that polled within WORKER_SEEN_WITHIN_MS of `now`: the workers readiness and decisions count. */
export function recentPollers<P extends { lastAccessTime?: Parameters<typeof epochMs>[0] }>(
  pollers: readonly P[],
  now: number
): P[] {
  return pollers.filter((p) => now - (epochMs(p.lastAccessTime) ?? 0) < WORKER_SEEN_WITHIN_MS);
}

export const noWorkerPolling = (taskQueue: string) => `no worker is polling task queue ${taskQueue}`;

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

/**
 * The turn's progress query (workflows/messages.ts), which only a worker can answer: not asked when no worker
 * polls the turn's task queue, and given up after TURN_QUERY_DEADLINE_MS. Null when there is no such turn.
 */
export async function readProgress(
  client: Client,
  workflowId: string,
  runId?: string,
  taskQueue?: string
): Promise<ProgressRead | null> {
  const handle = client.workflow.getHandle(workflowId, runId);
  try {
    const queue = taskQueue ?? (await handle.describe()).taskQueue;
    if ((await workerPolls(client.connection, client.options.namespace, queue)) === false) {
      return { unavailable: noWorkerPolling(queue) };
    }
    try {
      return {
        progress: await client.withDeadline(Date.now() + TURN_QUERY_DEADLINE_MS, () => handle.query(turnProgressQuery)),
      };
    } catch (err) {
      const why = unanswered(err, queue);
      if (why === null) throw err;
      return { unavailable: why };
    }
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/** The 503 for a turn whose details only its worker can give, and no worker answers. */
export function progressUnavailable(workflowId: string, why: string): WorkerUnavailableError {
  return new WorkerUnavailableError(`Cannot read what turn ${workflowId} waits on: ${why}.`, { workflowId });
}
