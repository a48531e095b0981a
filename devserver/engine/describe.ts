/** DescribeWorkflowExecution and the WorkflowExecutionInfo shared with visibility listings. */
import { msToDuration, msToTimestamp } from '../proto/time';
import { enums, type Message, type Timestamp, type WorkflowExecutionRef } from '../proto/types';
import type { Engine } from './engine';
import { eventCount, isOpen, type ActivityState, type RunState } from './state';

export function executionInfo(run: RunState): Message {
  return {
    execution: { workflowId: run.workflowId, runId: run.runId },
    type: { name: run.workflowType },
    startTime: msToTimestamp(run.startTime),
    closeTime: run.closeTime === undefined ? undefined : msToTimestamp(run.closeTime),
    status: run.status,
    historyLength: eventCount(run),
    executionTime: msToTimestamp(run.executionTime),
    memo: { fields: run.memo },
    searchAttributes: { indexedFields: run.searchAttributes },
    taskQueue: run.taskQueue,
    stateTransitionCount: eventCount(run),
    historySizeBytes: run.historySizeBytes,
    executionDuration: run.closeTime === undefined ? undefined : msToDuration(run.closeTime - run.executionTime),
    rootExecution: { workflowId: run.workflowId, runId: run.runId },
    firstRunId: run.firstExecutionRunId,
  };
}

function pendingActivityInfo(activity: ActivityState): Message {
  const optionalTime = (ms: number | undefined): Timestamp | undefined =>
    ms === undefined ? undefined : msToTimestamp(ms);
  return {
    activityId: activity.activityId,
    activityType: { name: activity.activityType },
    state: pendingActivityState(activity),
    heartbeatDetails: activity.heartbeatDetails,
    lastHeartbeatTime: optionalTime(activity.lastHeartbeatAt),
    lastStartedTime: optionalTime(activity.startedAt),
    attempt: activity.attempt,
    maximumAttempts: activity.retryPolicy.maximumAttempts,
    scheduledTime: msToTimestamp(activity.attemptScheduledAt),
    expirationTime:
      activity.scheduleToCloseMs > 0 ? msToTimestamp(activity.scheduledAt + activity.scheduleToCloseMs) : undefined,
    lastFailure: activity.lastFailure,
    lastWorkerIdentity: activity.lastIdentity,
    nextAttemptScheduleTime: activity.stage === 'BACKOFF' ? msToTimestamp(activity.attemptScheduledAt) : undefined,
    paused: activity.paused !== undefined,
    pauseInfo: activity.paused && {
      pauseTime: msToTimestamp(activity.paused.at),
      manual: { identity: activity.paused.identity, reason: activity.paused.reason },
    },
  };
}

/** As the real server reports it: a paused activity is PAUSED, or PAUSE_REQUESTED while an attempt still runs. */
function pendingActivityState(activity: ActivityState): number {
  const S = enums.PendingActivityState;
  if (activity.cancelRequested) return S.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED;
  if (activity.stage === 'STARTED') {
    return activity.paused ? S.PENDING_ACTIVITY_STATE_PAUSE_REQUESTED : S.PENDING_ACTIVITY_STATE_STARTED;
  }
  return activity.paused ? S.PENDING_ACTIVITY_STATE_PAUSED : S.PENDING_ACTIVITY_STATE_SCHEDULED;
}

function pendingWorkflowTask(run: RunState): Message | undefined {
  const wft = run.wft;
  if (!wft || !isOpen(run)) return undefined;
  const S = enums.PendingWorkflowTaskState;
  return {
    state: wft.startedEventId ? S.PENDING_WORKFLOW_TASK_STATE_STARTED : S.PENDING_WORKFLOW_TASK_STATE_SCHEDULED,
    scheduledTime: msToTimestamp(wft.scheduledAt),
    originalScheduledTime: msToTimestamp(wft.scheduledAt),
    startedTime: wft.startedAt === undefined ? undefined : msToTimestamp(wft.startedAt),
    attempt: wft.attempt,
  };
}

export function describeWorkflowExecution(engine: Engine, request: { execution?: WorkflowExecutionRef }): Message {
  const run = engine.requireRun(request.execution);
  return {
    executionConfig: {
      taskQueue: { name: run.taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      workflowExecutionTimeout: msToDuration(run.executionTimeoutMs),
      workflowRunTimeout: msToDuration(run.runTimeoutMs),
      defaultWorkflowTaskTimeout: msToDuration(run.workflowTaskTimeoutMs),
    },
    workflowExecutionInfo: executionInfo(run),
    pendingActivities: Object.values(run.activities).map(pendingActivityInfo),
    pendingWorkflowTask: pendingWorkflowTask(run),
  };
}
