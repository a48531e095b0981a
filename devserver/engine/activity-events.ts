/**
 * An activity's history events, written when it finishes: ActivityTaskStarted for the final attempt
 * (if it started) together with the closing event, so retries never show up in history.
 */
import { enums, type Failure, type Payloads } from '../proto/types';
import type { Engine } from './engine';
import { pending, STARTED_EVENT_PLACEHOLDER, type PendingEvent } from './history';
import type { ActivityState } from './state';

const E = enums.EventType;

/** ActivityTaskStarted for the final attempt; written only when the activity finishes. */
function startedEvent(engine: Engine, activity: ActivityState): PendingEvent {
  return pending(
    engine,
    E.EVENT_TYPE_ACTIVITY_TASK_STARTED,
    'activityTaskStartedEventAttributes',
    {
      scheduledEventId: activity.scheduledEventId,
      identity: activity.lastIdentity,
      attempt: activity.attempt,
      lastFailure: activity.lastFailure,
    },
    activity.startedAt
  );
}

/** Started (if the attempt started) + the closing event, as one group. */
export function closingGroup(engine: Engine, activity: ActivityState, closing: PendingEvent): PendingEvent[] {
  if (activity.stage !== 'STARTED') {
    closing.attributes.startedEventId = 0;
    return [closing];
  }
  closing.attributes.startedEventId = STARTED_EVENT_PLACEHOLDER;
  return [startedEvent(engine, activity), closing];
}

export function timedOutEvent(
  engine: Engine,
  activity: ActivityState,
  failure: Failure,
  retryState: number
): PendingEvent {
  return pending(engine, E.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT, 'activityTaskTimedOutEventAttributes', {
    failure,
    scheduledEventId: activity.scheduledEventId,
    retryState,
  });
}

export function failedEvent(
  engine: Engine,
  activity: ActivityState,
  failure: Failure,
  identity: string | undefined,
  retryState: number
): PendingEvent {
  return pending(engine, E.EVENT_TYPE_ACTIVITY_TASK_FAILED, 'activityTaskFailedEventAttributes', {
    failure,
    scheduledEventId: activity.scheduledEventId,
    identity: identity ?? activity.lastIdentity,
    retryState,
  });
}

/** A worker's final word on a started attempt. */
export type ActivityOutcome =
  | { kind: 'completed'; result?: Payloads }
  | { kind: 'failed'; failure?: Failure; lastHeartbeatDetails?: Payloads }
  | { kind: 'canceled'; details?: Payloads };

/** The closing event of an attempt its worker completed or cancelled. */
export function resolvedEvent(
  engine: Engine,
  activity: ActivityState,
  outcome: Exclude<ActivityOutcome, { kind: 'failed' }>,
  identity: string | undefined
): PendingEvent {
  const base = { scheduledEventId: activity.scheduledEventId, identity: identity ?? activity.lastIdentity };
  if (outcome.kind === 'completed') {
    return pending(engine, E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, 'activityTaskCompletedEventAttributes', {
      ...base,
      result: outcome.result,
    });
  }
  return pending(engine, E.EVENT_TYPE_ACTIVITY_TASK_CANCELED, 'activityTaskCanceledEventAttributes', {
    ...base,
    details: outcome.details,
    latestCancelRequestedEventId: activity.cancelRequestedEventId ?? 0,
  });
}
