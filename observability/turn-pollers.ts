import { hostname } from 'node:os';
import type { ConnectionLike } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { epochMs } from '../config/temporal-timestamp';
import { TURN_WORKFLOW_TYPE } from '../workflows/turn-type';
import { temporalCheck } from './dependency-checks';

/**
 * The one reader of a turn task queue's pollers, for the API's readiness and for the gate of what only a turn's
 * worker can do (an operator's decision, a parked turn's progress query), so both count the same workers.
 */

/**
 * How recently a poller must have polled a task queue to count as a worker. A live idle worker polls again each
 * time a long poll ends (a minute on Temporal's server, 55 s on our dev server), and Temporal keeps listing a
 * poller for minutes after its worker went away, so a worker gone for less than this still counts: what is sent
 * to it then waits for the deadline of whoever sent it. Both clocks are assumed to agree to within seconds.
 */
export const WORKER_SEEN_WITHIN_MS = 70_000;

/**
 * A turn worker says in its Temporal identity which turn workflow type it runs, so the API can tell from the task
 * queue's pollers that a worker of an older build (which lacks the type the API starts, and so fails each such
 * turn's workflow task until a newer worker takes it) is polling. Older builds set no marker: a poller without it
 * is taken for one of them.
 */
const RUNS_MARKER = `runs=${TURN_WORKFLOW_TYPE}`;

/** The identity of a turn worker: Temporal's default (`pid@host`), or the one given, with the marker. */
export function turnWorkerIdentity(identity?: string): string {
  return `${identity ?? `${process.pid}@${hostname()}`} ${RUNS_MARKER}`;
}

/** The workers that polled a turn task queue within WORKER_SEEN_WITHIN_MS, by build. */
export interface TurnPollers {
  /** Workers of this build: they run TURN_WORKFLOW_TYPE and the older turn types they keep registered. */
  current: number;
  /** Workers of an older build: they run only older turn types. */
  older: number;
}

/** A poller as DescribeTaskQueue lists it (a protobuf, or sdk-core's JSON). */
interface PollerInfo {
  identity?: string | null;
  lastAccessTime?: Parameters<typeof epochMs>[0];
}

/** The pollers DescribeTaskQueue listed that polled within WORKER_SEEN_WITHIN_MS of `now`, counted by build. */
export function countTurnPollers(pollers: readonly PollerInfo[], now: number): TurnPollers {
  const recent = pollers.filter((p) => now - (epochMs(p.lastAccessTime) ?? 0) < WORKER_SEEN_WITHIN_MS);
  const current = recent.filter((p) => (p.identity ?? '').split(' ').includes(RUNS_MARKER)).length;
  return { current, older: recent.length - current };
}

/** The workflow-task pollers of `taskQueue`, within the check deadline; rejects when Temporal does not say. */
export async function readTurnPollers(
  connection: Pick<ConnectionLike, 'workflowService' | 'withDeadline'>,
  namespace: string,
  taskQueue: string
): Promise<TurnPollers> {
  const described = await temporalCheck(connection, () =>
    connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    })
  );
  return countTurnPollers(described.pollers ?? [], Date.now());
}

export const noWorkerPolling = (taskQueue: string) => `no worker is polling task queue ${taskQueue}`;

/**
 * Why no worker polling `taskQueue` can run a turn of `workflowType`, or null when one can: a turn of the type this
 * build starts needs a worker of this build; one of an older type (started before an upgrade) any worker.
 */
export function noWorkerRuns(pollers: TurnPollers, taskQueue: string, workflowType: string): string | null {
  const able = workflowType === TURN_WORKFLOW_TYPE ? pollers.current : pollers.current + pollers.older;
  if (able > 0) return null;
  if (pollers.older === 0) return noWorkerPolling(taskQueue);
  return (
    `no worker polling task queue ${taskQueue} runs ${TURN_WORKFLOW_TYPE}, only ${pollers.older} of an older build: ` +
    'deploy workers of this build'
  );
}

export interface TurnPollersCheck {
  /** Readiness's `worker` check: `ok` while some worker polling runs the type the API starts. */
  check: string;
  warning?: string;
}

/** The API's readiness from its task queue's pollers: ready while a worker could run a turn it starts now. */
export function turnPollersCheck({ current, older }: TurnPollers): TurnPollersCheck {
  if (current + older === 0) return { check: 'no worker polling' };
  if (current === 0) return { check: `no worker polling runs ${TURN_WORKFLOW_TYPE}: deploy workers of this build` };
  if (older === 0) return { check: 'ok' };
  return {
    check: 'ok',
    warning:
      `${older} of ${current + older} workers polling do not run ${TURN_WORKFLOW_TYPE} (an older build): ` +
      'a turn one of them picks up waits ~10 s for its retry on another',
  };
}
