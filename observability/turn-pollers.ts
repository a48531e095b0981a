import { hostname } from 'node:os';
import type { ConnectionLike } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { epochMs } from '../config/temporal-timestamp';
import { TURN_WORKFLOW_TYPE } from '../workflows/turn-type';
import { TURN_PATCHES } from '../workflows/turn-versions';
import { temporalCheck } from './dependency-checks';
import { temporalClock, type TemporalClock } from './temporal-clock';
import { patchesBeyond, patchesKnownBy, patchesSaidBy, patchesWord } from './turn-patches';

/**
 * The one reader of a turn task queue's pollers, for the API's readiness and for the gate of what only a turn's
 * worker can do (an operator's decision, a parked turn's progress query), so both count the same workers.
 */

/**
 * How recently a poller must have polled a task queue to count as a worker. A live idle worker polls again each
 * time a long poll ends (a minute on Temporal's server, 55 s on our dev server), and Temporal keeps listing a
 * poller for minutes after its worker went away, so a worker gone for less than this still counts: what is sent
 * to it then waits for the deadline of whoever sent it. The age is taken on Temporal's clock, which stamps the
 * accesses, as this process estimates it (observability/temporal-clock.ts): this host's clock may be off by more.
 */
export const WORKER_SEEN_WITHIN_MS = 70_000;

/**
 * A turn worker says in its Temporal identity which turn workflow type it runs, so the API can tell from the task
 * queue's pollers that a worker of an older build (which lacks the type the API starts, and so fails each such
 * turn's workflow task until a newer worker takes it) is polling.
 */
const RUNS_MARKER = `runs=${TURN_WORKFLOW_TYPE}`;

/**
 * Builds before the marker (06a5174) poll with Temporal's default identity, `pid@host`. From a1cc19c on they ran
 * conversationTurnV3, the ones before only conversationTurnV2 and conversationTurn, and nothing in the identity tells
 * which. A poller without a marker may therefore run this type, but no type newer than this.
 */
const NEWEST_TYPE_BEFORE_MARKER: string = 'conversationTurnV3';

/**
 * The identity of a turn worker: Temporal's default (`pid@host`), or the one given, with the marker and the patches
 * it knows (observability/turn-patches.ts).
 */
export function turnWorkerIdentity(identity?: string): string {
  return `${identity ?? `${process.pid}@${hostname()}`} ${RUNS_MARKER} ${patchesWord()}`;
}

type Build = 'current' | 'older' | 'unmarked';

/** The workers that polled a turn task queue within WORKER_SEEN_WITHIN_MS, by build. */
export interface TurnPollers {
  /** Workers of this build: they run TURN_WORKFLOW_TYPE and the older turn types they keep registered. */
  current: number;
  /** Workers of an older build: they run only older turn types. */
  older: number;
  /**
   * Workers of a build from before the marker, which may run TURN_WORKFLOW_TYPE (NEWEST_TYPE_BEFORE_MARKER): from
   * a1cc19c on they do, before it they do not.
   */
  unmarked: number;
  /**
   * By build, the most patches (TURN_PATCHES' first n) a worker polling may know: what its identity says, or for one
   * that does not say (a build before that) PATCHES_BEFORE_MARKER; 0 when none polls.
   */
  mayKnow: Record<Build, number>;
  /** Workers of this build whose identity says they know every patch this build records. */
  knowAll: number;
  /** Workers that run, or may run, TURN_WORKFLOW_TYPE whose identity does not say which patches they know. */
  unsaid: number;
}

/** A poller as DescribeTaskQueue lists it (a protobuf, or sdk-core's JSON). */
interface PollerInfo {
  identity?: string | null;
  lastAccessTime?: Parameters<typeof epochMs>[0];
}

/** Which build a poller's identity says it is of. */
function buildOf(identity: string): Build {
  const words = identity.split(' ');
  if (words.includes(RUNS_MARKER)) return 'current';
  const marked = words.some((word) => word.startsWith('runs='));
  return marked || TURN_WORKFLOW_TYPE !== NEWEST_TYPE_BEFORE_MARKER ? 'older' : 'unmarked';
}

/**
 * The pollers DescribeTaskQueue listed that polled within WORKER_SEEN_WITHIN_MS of `now` (Temporal's time), counted
 * by build.
 */
export function countTurnPollers(pollers: readonly PollerInfo[], now: number): TurnPollers {
  const mayKnow = { current: 0, older: 0, unmarked: 0 };
  const counts: TurnPollers = { current: 0, older: 0, unmarked: 0, mayKnow, knowAll: 0, unsaid: 0 };
  for (const poller of pollers) {
    if (now - (epochMs(poller.lastAccessTime) ?? 0) >= WORKER_SEEN_WITHIN_MS) continue;
    const identity = poller.identity ?? '';
    const build = buildOf(identity);
    const said = patchesSaidBy(identity);
    counts[build]++;
    mayKnow[build] = Math.max(mayKnow[build], patchesKnownBy(identity));
    if (build !== 'older' && said === null) counts.unsaid++;
    if (build === 'current' && said !== null && said >= TURN_PATCHES.length) counts.knowAll++;
  }
  return counts;
}

/**
 * The workflow-task pollers of `taskQueue`, within the check deadline; rejects when Temporal does not say. Each
 * reply also tells `clock` what it proves of Temporal's clock, by which the pollers' ages are judged.
 */
export async function readTurnPollers(
  connection: Pick<ConnectionLike, 'workflowService' | 'withDeadline'>,
  namespace: string,
  taskQueue: string,
  clock: TemporalClock = temporalClock
): Promise<TurnPollers> {
  const sentAt = clock.local.monotonicMs();
  const described = await temporalCheck(connection, () =>
    connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    })
  );
  const pollers = described.pollers ?? [];
  const accesses = new Map<string, number>();
  for (const { identity, lastAccessTime } of pollers) {
    const access = epochMs(lastAccessTime);
    if (identity && access !== null) accesses.set(identity, access);
  }
  clock.observe({ queue: `${namespace}/${taskQueue}`, accesses, sentAt, receivedAt: clock.local.monotonicMs() });
  return countTurnPollers(pollers, clock.now());
}

/** How often the API reads its task queue's pollers after it starts, until they prove Temporal's clock. */
export const CLOCK_SAMPLE_EVERY_MS = 10_000;
/** When those reads give up: no worker polled yet, and readiness and the decisions' gate read the pollers anyway. */
const CLOCK_SAMPLING_FOR_MS = 120_000;

/**
 * Reads `taskQueue`'s pollers as the API starts and every CLOCK_SAMPLE_EVERY_MS after, until a poll seen to happen
 * bounds Temporal's clock from above (or CLOCK_SAMPLING_FOR_MS passed, or `signal` aborted). Otherwise the first read
 * was the first /readyz probe or operator decision, and only a poll after it told a host clock ahead: until then an
 * API host ahead by more than WORKER_SEEN_WITHIN_MS read every worker as gone, and an API no probe reads refused its
 * first decision, however long after its start (503 WORKER_UNAVAILABLE).
 */
export function sampleTemporalClock(
  connection: Pick<ConnectionLike, 'workflowService' | 'withDeadline'>,
  target: { namespace: string; taskQueue: string },
  signal: AbortSignal,
  clock: TemporalClock = temporalClock
): void {
  const started = clock.local.monotonicMs();
  let timer: NodeJS.Timeout | undefined;
  signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  const sample = (): void => {
    if (signal.aborted || clock.boundedAbove || clock.local.monotonicMs() - started > CLOCK_SAMPLING_FOR_MS) return;
    // Temporal not answering is readiness's to report; the next read tries again.
    void readTurnPollers(connection, target.namespace, target.taskQueue, clock)
      .catch(() => undefined)
      .then(() => {
        if (!signal.aborted) timer = setTimeout(sample, CLOCK_SAMPLE_EVERY_MS).unref();
      });
  };
  sample();
}

export const noWorkerPolling = (taskQueue: string) => `no worker is polling task queue ${taskQueue}`;

/**
 * Why no worker polling `taskQueue` can run a turn of `workflowType`, or null when one can: a turn of the type this
 * build starts needs a worker of this build, or one that may be (unmarked); one of an older type (started before an
 * upgrade) any worker. An unmarked worker that cannot run the type after all fails the decision's workflow task, and
 * Temporal drops the decision unapplied (TURN_NOT_READY) or it waits for a worker (WORKER_UNAVAILABLE, sent): either
 * way nothing is lost, and such a turn got as far as a decision only on a worker that runs its type.
 */
export function noWorkerRuns(pollers: TurnPollers, taskQueue: string, workflowType: string): string | null {
  const { older } = pollers;
  if (ableBuilds(workflowType).some((build) => pollers[build] > 0)) return null;
  if (older === 0) return noWorkerPolling(taskQueue);
  return (
    `no worker polling task queue ${taskQueue} runs ${TURN_WORKFLOW_TYPE}, only ${older} of an older build: ` +
    'deploy workers of this build'
  );
}

/** The builds whose workers run, or may run, a turn of `workflowType` (noWorkerRuns). */
const ableBuilds = (workflowType: string): Build[] =>
  workflowType === TURN_WORKFLOW_TYPE ? ['current', 'unmarked'] : ['current', 'older', 'unmarked'];

/**
 * The patches a turn of `workflowType` recorded (`recorded`, its TemporalChangeVersion) that no worker polling that
 * runs its type may know: such a worker fails the turn's every workflow task, and a decision sent is dropped
 * (TURN_NOT_READY) however often it is sent. Empty when one may know them all, or with none polling (noWorkerRuns).
 */
export function patchesNoWorkerKnows(
  pollers: TurnPollers,
  workflowType: string,
  recorded: readonly string[]
): string[] {
  const able = ableBuilds(workflowType).filter((build) => pollers[build] > 0);
  if (able.length === 0) return [];
  return patchesBeyond(recorded, Math.max(...able.map((build) => pollers.mayKnow[build])));
}

export interface TurnPollersCheck {
  /** Readiness's `worker` check: `ok` while some worker polling runs, or may run, the type the API starts. */
  check: string;
  warning?: string;
}

/** What the API's readiness warns of while workers of other builds poll beside those that run its type. */
function otherBuildsWarning(pollers: TurnPollers): string | undefined {
  const { current, older, unmarked } = pollers;
  const total = current + older + unmarked;
  const parts: string[] = [];
  const patches = patchesWarning(pollers);
  if (older > 0) {
    parts.push(
      `${older} of ${total} workers polling do not run ${TURN_WORKFLOW_TYPE} (an older build): ` +
        'a turn one of them picks up waits ~10 s for its retry on another'
    );
  }
  if (unmarked > 0) {
    parts.push(
      `${unmarked} of ${total} workers polling are of a build before 06a5174, whose identity does not say whether ` +
        `it runs ${TURN_WORKFLOW_TYPE} (builds from a1cc19c on do): deploy workers of this build`
    );
  }
  if (patches !== undefined) parts.push(patches);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * What readiness warns of while no worker that runs TURN_WORKFLOW_TYPE says it knows every patch this build records:
 * a turn a worker of this build started may have recorded one they lack, and fails its workflow tasks on them.
 */
function patchesWarning({ current, unmarked, knowAll, unsaid }: TurnPollers): string | undefined {
  if (knowAll > 0) return undefined;
  const fewer = current + unmarked - unsaid;
  const who = [
    ...(fewer > 0 ? [`${fewer} say they know fewer`] : []),
    ...(unsaid > 0 ? [`${unsaid} of a build from before identities named their patches`] : []),
  ];
  return (
    `no worker polling knows all ${TURN_PATCHES.length} turn workflow patches this build records (${who.join(', ')}): ` +
    `a turn that recorded one a worker lacks (the newest: ${TURN_PATCHES.at(-1)}) fails its workflow tasks there ` +
    '(TMPRL1100), and a decision on it cannot land: deploy workers of this build'
  );
}

/** The API's readiness from its task queue's pollers: ready while a worker could run a turn it starts now. */
export function turnPollersCheck(pollers: TurnPollers): TurnPollersCheck {
  const { current, older, unmarked } = pollers;
  if (current + older + unmarked === 0) return { check: 'no worker polling' };
  if (current + unmarked === 0) {
    return { check: `no worker polling runs ${TURN_WORKFLOW_TYPE}: deploy workers of this build` };
  }
  const warning = otherBuildsWarning(pollers);
  return warning ? { check: 'ok', warning } : { check: 'ok' };
}
