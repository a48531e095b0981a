/** Activity commands of a workflow task: ScheduleActivityTask (with the server's timeout defaults) and RequestCancelActivityTask. */
import { durationMs, msToDuration } from '../proto/time';
import { enums, type Message, type Payloads, type RetryPolicy } from '../proto/types';
import { activityKey, armActivity, enqueueActivity } from './activities';
import type { CommandProblem } from './command';
import type { Engine } from './engine';
import { appendEvent } from './history';
import { normalizeRetryPolicy, validateRetryPolicy } from './retry';
import type { ActivityState, RunState } from './state';

const E = enums.EventType;
const CAUSE = enums.WorkflowTaskFailedCause;

interface ActivityTimeouts {
  scheduleToCloseMs: number;
  scheduleToStartMs: number;
  startToCloseMs: number;
  heartbeatMs: number;
}

/** Fills in timeouts the way the real server does; undefined when neither bound is set. */
function normalizeTimeouts(attributes: Message, runTimeoutMs: number): ActivityTimeouts | undefined {
  const cap = (ms: number, limit: number): number => (limit > 0 && (ms <= 0 || ms > limit) ? limit : ms);
  let scheduleToCloseMs = durationMs(attributes.scheduleToCloseTimeout as Message);
  let startToCloseMs = durationMs(attributes.startToCloseTimeout as Message);
  if (scheduleToCloseMs <= 0 && startToCloseMs <= 0) return undefined;
  scheduleToCloseMs = scheduleToCloseMs > 0 ? cap(scheduleToCloseMs, runTimeoutMs) : runTimeoutMs;
  startToCloseMs = cap(startToCloseMs, scheduleToCloseMs);
  const scheduleToStartMs = cap(durationMs(attributes.scheduleToStartTimeout as Message), scheduleToCloseMs);
  const heartbeatMs = Math.min(durationMs(attributes.heartbeatTimeout as Message), startToCloseMs);
  return { scheduleToCloseMs, scheduleToStartMs, startToCloseMs, heartbeatMs: Math.max(0, heartbeatMs) };
}

export function validateScheduleActivity(
  run: RunState,
  attributes: Message,
  activityIds: Set<string>
): CommandProblem | undefined {
  const cause = CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES;
  const activityId = String(attributes.activityId ?? '');
  if (!activityId) return { cause, message: 'ActivityId is not set on ScheduleActivityTaskCommand.' };
  if (activityIds.has(activityId)) return { cause, message: `Activity with ID ${activityId} is already running.` };
  if (!(attributes.activityType as Message | undefined)?.name) {
    return { cause, message: 'ActivityType is not set on ScheduleActivityTaskCommand.' };
  }
  if (!normalizeTimeouts(attributes, run.runTimeoutMs)) {
    return {
      cause,
      message: 'A valid StartToClose or ScheduleToCloseTimeout is not set on ScheduleActivityTaskCommand.',
    };
  }
  const retryProblem = validateRetryPolicy(attributes.retryPolicy as RetryPolicy | undefined);
  if (retryProblem) return { cause, message: retryProblem };
  activityIds.add(activityId);
  return undefined;
}

/**
 * ScheduleActivityTask command. `eager`: the worker will be handed the task in its answer
 * (startEagerActivities), so it is not queued; its deadlines are armed all the same. Returns the
 * activity's scheduled event ID.
 */
export function scheduleActivity(
  engine: Engine,
  run: RunState,
  attributes: Message,
  completedEventId: number,
  eager = false
): number {
  const timeouts = normalizeTimeouts(attributes, run.runTimeoutMs) as ActivityTimeouts;
  const retryPolicy = normalizeRetryPolicy(attributes.retryPolicy as RetryPolicy | undefined);
  const taskQueue = String((attributes.taskQueue as Message | undefined)?.name || run.taskQueue);
  const event = appendEvent(engine, run, E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 'activityTaskScheduledEventAttributes', {
    activityId: attributes.activityId,
    activityType: attributes.activityType,
    taskQueue: { name: taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    header: attributes.header,
    input: attributes.input,
    scheduleToCloseTimeout: msToDuration(timeouts.scheduleToCloseMs),
    scheduleToStartTimeout: msToDuration(timeouts.scheduleToStartMs),
    startToCloseTimeout: msToDuration(timeouts.startToCloseMs),
    heartbeatTimeout: msToDuration(timeouts.heartbeatMs),
    workflowTaskCompletedEventId: completedEventId,
    retryPolicy,
    useWorkflowBuildId: attributes.useWorkflowBuildId,
    priority: attributes.priority,
  });
  const now = engine.now();
  const activity: ActivityState = {
    scheduledEventId: event.eventId,
    activityId: String(attributes.activityId),
    activityType: String((attributes.activityType as Message).name),
    taskQueue,
    header: attributes.header as ActivityState['header'],
    input: attributes.input as Payloads | undefined,
    ...timeouts,
    retryPolicy,
    priority: attributes.priority,
    stage: 'SCHEDULED',
    attempt: 1,
    scheduledAt: now,
    attemptScheduledAt: now,
    cancelRequested: false,
  };
  run.activities[event.eventId] = activity;
  armActivity(engine, run, activity);
  if (!eager) enqueueActivity(engine, run, activity);
  return event.eventId;
}

/** RequestCancelActivityTask command. Returns true if the workflow needs a new task (cancelled at once). */
export function requestCancelActivity(
  engine: Engine,
  run: RunState,
  attributes: Message,
  completedEventId: number,
  identity: string
): boolean {
  const scheduledEventId = Number(attributes.scheduledEventId);
  const requested = appendEvent(
    engine,
    run,
    E.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED,
    'activityTaskCancelRequestedEventAttributes',
    {
      scheduledEventId,
      workflowTaskCompletedEventId: completedEventId,
    }
  );
  const activity = run.activities[scheduledEventId];
  if (!activity) return false;
  if (activity.stage === 'STARTED') {
    activity.cancelRequested = true;
    activity.cancelRequestedEventId = requested.eventId;
    engine.touch(run);
    return false;
  }
  delete run.activities[scheduledEventId];
  engine.scheduler.clear(activityKey(run.runId, scheduledEventId));
  appendEvent(engine, run, E.EVENT_TYPE_ACTIVITY_TASK_CANCELED, 'activityTaskCanceledEventAttributes', {
    scheduledEventId,
    startedEventId: 0,
    latestCancelRequestedEventId: requested.eventId,
    identity,
  });
  return true;
}
