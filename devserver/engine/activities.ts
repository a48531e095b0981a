/**
 * Activity state machine. Attempts are tracked in mutable state only; the history events are
 * written when the activity finishes (activity-events.ts). Deadlines: schedule-to-close (whole
 * activity), schedule-to-start (per attempt), start-to-close and heartbeat (per started attempt),
 * plus the retry backoff.
 */
import { msToDuration, msToTimestamp } from '../proto/time';
import { enums, type Failure, type Message, type Payloads } from '../proto/types';
import { closingGroup, failedEvent, resolvedEvent, timedOutEvent, type ActivityOutcome } from './activity-events';
import { nextDeadline, timeoutFailure } from './activity-timeouts';
import type { Engine } from './engine';
import type { PendingEvent } from './history';
import type { PollerInfo } from './matching';
import { decideRetry } from './retry';
import { isOpen, type ActivityState, type RunState } from './state';
import { activityTaskToken } from './tokens';
import { recordExternalEvents } from './workflow-task';

const TIMEOUT = enums.TimeoutType;

export function activityKey(runId: string, scheduledEventId: number): string {
  return `activity:${runId}:${scheduledEventId}`;
}

export function enqueueActivity(engine: Engine, run: RunState, activity: ActivityState): void {
  const runId = run.runId;
  const { scheduledEventId, attempt, taskQueue } = activity;
  engine.defer(() =>
    engine.matching.offer('activity', taskQueue, {
      dispatch: (poller) => dispatchActivity(engine, runId, scheduledEventId, attempt, poller),
    })
  );
}

export function armActivity(engine: Engine, run: RunState, activity: ActivityState): void {
  const key = activityKey(run.runId, activity.scheduledEventId);
  const at = nextDeadline(activity);
  if (at === Infinity) {
    engine.scheduler.clear(key);
    return;
  }
  const { runId } = run;
  const { scheduledEventId } = activity;
  engine.scheduler.set(key, at, () => onActivityDeadline(engine, runId, scheduledEventId));
}

function onActivityDeadline(engine: Engine, runId: string, scheduledEventId: number): void {
  const run = engine.runs.get(runId);
  const activity = run?.activities[scheduledEventId];
  if (!run || !activity || !isOpen(run)) return;
  const now = engine.now();
  if (activity.scheduleToCloseMs > 0 && now >= activity.scheduledAt + activity.scheduleToCloseMs) {
    timeOutActivity(engine, run, activity, TIMEOUT.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, activity.lastFailure);
    return;
  }
  if (activity.stage === 'BACKOFF' && now >= activity.attemptScheduledAt) {
    activity.stage = 'SCHEDULED';
    engine.touch(run);
    if (!activity.paused) enqueueActivity(engine, run, activity);
  } else if (
    activity.stage === 'SCHEDULED' &&
    activity.scheduleToStartMs > 0 &&
    now >= activity.attemptScheduledAt + activity.scheduleToStartMs
  ) {
    // Schedule-to-start timeouts are not retried: another attempt would wait on the same queue.
    timeOutActivity(engine, run, activity, TIMEOUT.TIMEOUT_TYPE_SCHEDULE_TO_START);
    return;
  } else if (activity.stage === 'STARTED' && activity.startedAt !== undefined) {
    const startToCloseExpired = activity.startToCloseMs > 0 && now >= activity.startedAt + activity.startToCloseMs;
    const heartbeatExpired =
      activity.heartbeatMs > 0 && now >= (activity.lastHeartbeatAt ?? activity.startedAt) + activity.heartbeatMs;
    if (startToCloseExpired || heartbeatExpired) {
      const type = startToCloseExpired ? TIMEOUT.TIMEOUT_TYPE_START_TO_CLOSE : TIMEOUT.TIMEOUT_TYPE_HEARTBEAT;
      attemptFailed(engine, run, activity, timeoutFailure(type, activity), undefined);
      return;
    }
  }
  armActivity(engine, run, activity);
}

function dispatchActivity(
  engine: Engine,
  runId: string,
  scheduledEventId: number,
  attempt: number,
  poller: PollerInfo
): Message | undefined {
  const run = engine.runs.get(runId);
  const activity = run?.activities[scheduledEventId];
  if (!run || !activity || !isOpen(run) || activity.stage !== 'SCHEDULED' || activity.attempt !== attempt) {
    return undefined;
  }
  // A paused activity's queued task is dropped; unpausing queues a new one.
  if (activity.paused) return undefined;
  return engine.transact(() => startAttempt(engine, run, activity, poller.identity));
}

/** Marks the scheduled attempt started by `identity` and builds its task. */
export function startAttempt(engine: Engine, run: RunState, activity: ActivityState, identity: string): Message {
  const now = engine.now();
  activity.stage = 'STARTED';
  activity.startedAt = now;
  activity.lastHeartbeatAt = undefined;
  activity.lastIdentity = identity;
  engine.touch(run);
  armActivity(engine, run, activity);
  engine.stats.activityTasksDispatched++;
  return activityTaskResponse(engine, run, activity, now);
}

function activityTaskResponse(engine: Engine, run: RunState, activity: ActivityState, now: number): Message {
  return {
    taskToken: activityTaskToken(run.runId, activity.scheduledEventId, activity.attempt),
    workflowNamespace: engine.namespace,
    workflowType: { name: run.workflowType },
    workflowExecution: { workflowId: run.workflowId, runId: run.runId },
    activityType: { name: activity.activityType },
    activityId: activity.activityId,
    header: activity.header,
    input: activity.input,
    heartbeatDetails: activity.heartbeatDetails,
    scheduledTime: msToTimestamp(activity.scheduledAt),
    currentAttemptScheduledTime: msToTimestamp(activity.attemptScheduledAt),
    startedTime: msToTimestamp(now),
    attempt: activity.attempt,
    // The TS worker requires every timeout to be present, zero included.
    scheduleToCloseTimeout: msToDuration(activity.scheduleToCloseMs),
    startToCloseTimeout: msToDuration(activity.startToCloseMs),
    heartbeatTimeout: msToDuration(activity.heartbeatMs),
    retryPolicy: activity.retryPolicy,
    priority: activity.priority,
  };
}

function finishActivity(engine: Engine, run: RunState, activity: ActivityState, closing: PendingEvent): void {
  const group = closingGroup(engine, activity, closing);
  delete run.activities[activity.scheduledEventId];
  engine.scheduler.clear(activityKey(run.runId, activity.scheduledEventId));
  engine.touch(run);
  recordExternalEvents(engine, run, group);
}

/** A timeout that ends the whole activity: it is not retried. */
function timeOutActivity(engine: Engine, run: RunState, activity: ActivityState, type: number, cause?: Failure): void {
  const failure = timeoutFailure(type, activity, cause);
  finishActivity(engine, run, activity, timedOutEvent(engine, activity, failure, enums.RetryState.RETRY_STATE_TIMEOUT));
}

/** A started attempt failed (worker failure or timeout): retry per policy, or finish the activity. */
function attemptFailed(
  engine: Engine,
  run: RunState,
  activity: ActivityState,
  failure: Failure,
  identity: string | undefined
): void {
  const now = engine.now();
  const expiresAt = activity.scheduleToCloseMs > 0 ? activity.scheduledAt + activity.scheduleToCloseMs : undefined;
  const decision = decideRetry(activity.retryPolicy, activity.attempt, failure, now, expiresAt);
  if (decision.delayMs === undefined) {
    const isTimeout = failure.timeoutFailureInfo !== undefined && !failure.applicationFailureInfo;
    const closing = isTimeout
      ? timedOutEvent(engine, activity, failure, decision.retryState)
      : failedEvent(engine, activity, failure, identity, decision.retryState);
    finishActivity(engine, run, activity, closing);
    return;
  }
  activity.attempt++;
  activity.lastFailure = failure;
  activity.startedAt = undefined;
  activity.lastHeartbeatAt = undefined;
  if (activity.resetHeartbeats) activity.heartbeatDetails = undefined;
  activity.resetRequested = undefined;
  activity.resetHeartbeats = undefined;
  activity.attemptScheduledAt = now + decision.delayMs;
  activity.stage = decision.delayMs > 0 ? 'BACKOFF' : 'SCHEDULED';
  engine.touch(run);
  armActivity(engine, run, activity);
  // A paused activity keeps its next attempt until it is unpaused.
  if (activity.stage === 'SCHEDULED' && !activity.paused) enqueueActivity(engine, run, activity);
}

/** Applies a worker's final word on a started attempt. */
export function resolveActivity(
  engine: Engine,
  run: RunState,
  activity: ActivityState,
  outcome: ActivityOutcome,
  identity: string | undefined
): void {
  if (outcome.kind !== 'failed') {
    finishActivity(engine, run, activity, resolvedEvent(engine, activity, outcome, identity));
    return;
  }
  if (outcome.lastHeartbeatDetails) activity.heartbeatDetails = outcome.lastHeartbeatDetails;
  const failure = outcome.failure ?? { message: 'activity failed without a failure' };
  attemptFailed(engine, run, activity, failure, identity);
}

/** What a heartbeat tells the running attempt: the SDK cancels it for any of these. */
export interface HeartbeatAnswer {
  cancelRequested: boolean;
  activityPaused: boolean;
  activityReset: boolean;
}

/** Records a heartbeat and answers whether the attempt was cancelled, paused or reset. */
export function heartbeatActivity(
  engine: Engine,
  run: RunState,
  activity: ActivityState,
  details?: Payloads
): HeartbeatAnswer {
  activity.lastHeartbeatAt = engine.now();
  if (details) activity.heartbeatDetails = details;
  engine.touch(run);
  // No re-arm: the pending deadline callback re-reads lastHeartbeatAt and pushes itself out.
  return {
    cancelRequested: activity.cancelRequested,
    activityPaused: activity.paused !== undefined,
    activityReset: activity.resetRequested === true,
  };
}

/** After a restart: queue what was waiting for a worker and re-arm every deadline. */
export function restoreActivity(engine: Engine, run: RunState, activity: ActivityState): void {
  armActivity(engine, run, activity);
  if (activity.stage === 'SCHEDULED') enqueueActivity(engine, run, activity);
}
