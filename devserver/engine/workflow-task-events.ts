/**
 * A workflow task's own history events: Scheduled, Started, and the TimedOut or Failed event of a
 * task that ended without completing. Completion's events are written by workflow-task-completion.ts.
 */
import { randomUUID } from 'node:crypto';
import { msToDuration } from '../proto/time';
import { enums, type Failure, type Message } from '../proto/types';
import type { Engine } from './engine';
import { appendEvent, appendMaterialized, materialize, pending } from './history';
import { nextEventId, type RunState, type WorkflowTaskState } from './state';

const E = enums.EventType;

/** How a started task ended without completing: its start-to-close timeout, or a failure its worker reported. */
export interface TaskEnding {
  cause?: number;
  failure?: Failure;
  identity?: string;
  timedOut?: boolean;
}

function taskQueueOf(run: RunState, wft: WorkflowTaskState): Message {
  return wft.sticky
    ? { name: wft.queue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: run.taskQueue }
    : { name: run.taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL };
}

function scheduledAttributes(run: RunState, wft: WorkflowTaskState): Record<string, unknown> {
  return {
    taskQueue: taskQueueOf(run, wft),
    startToCloseTimeout: msToDuration(run.workflowTaskTimeoutMs),
    attempt: wft.attempt,
  };
}

export function writeScheduled(engine: Engine, run: RunState, wft: WorkflowTaskState): void {
  const event = appendEvent(
    engine,
    run,
    E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    'workflowTaskScheduledEventAttributes',
    scheduledAttributes(run, wft)
  );
  wft.scheduledEventId = event.eventId;
}

/**
 * Writes WorkflowTaskStarted. Attempts >= 2 and speculative tasks get their Scheduled/Started pair
 * as transient events: numbered after the current history but only written if the task completes.
 */
export function recordStarted(engine: Engine, run: RunState, wft: WorkflowTaskState, identity: string): void {
  const startedAttributes = (scheduledEventId: number): Record<string, unknown> => ({
    scheduledEventId,
    identity,
    requestId: randomUUID(),
    historySizeBytes: run.historySizeBytes,
  });
  if (wft.attempt === 1 && !wft.speculative) {
    const key = 'workflowTaskStartedEventAttributes';
    const started = appendEvent(
      engine,
      run,
      E.EVENT_TYPE_WORKFLOW_TASK_STARTED,
      key,
      startedAttributes(wft.scheduledEventId)
    );
    wft.startedEventId = started.eventId;
    return;
  }
  const scheduledId = nextEventId(run);
  const scheduled = pending(
    engine,
    E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    'workflowTaskScheduledEventAttributes',
    scheduledAttributes(run, wft),
    wft.scheduledAt
  );
  const started = pending(
    engine,
    E.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    'workflowTaskStartedEventAttributes',
    startedAttributes(scheduledId)
  );
  wft.transientEvents = [materialize(engine, scheduledId, scheduled), materialize(engine, scheduledId + 1, started)];
  wft.scheduledEventId = scheduledId;
  wft.startedEventId = scheduledId + 1;
}

function writeTimedOut(
  engine: Engine,
  run: RunState,
  wft: WorkflowTaskState,
  startedEventId: number,
  timeoutType: number
): void {
  appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, 'workflowTaskTimedOutEventAttributes', {
    scheduledEventId: wft.scheduledEventId,
    startedEventId,
    timeoutType,
  });
}

/** Nobody took the task from its sticky queue in time; a task that has no Scheduled event leaves no trace. */
export function writeScheduleToStartTimedOut(engine: Engine, run: RunState, wft: WorkflowTaskState): void {
  if (wft.scheduledEventId === 0) return;
  writeTimedOut(engine, run, wft, 0, enums.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START);
}

/** Writes the task's transient events, if it had any, then its TimedOut or Failed event. */
export function writeEnding(engine: Engine, run: RunState, wft: WorkflowTaskState, how: TaskEnding): void {
  for (const event of wft.transientEvents ?? []) appendMaterialized(engine, run, event);
  if (how.timedOut) {
    writeTimedOut(engine, run, wft, wft.startedEventId, enums.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE);
    return;
  }
  appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_TASK_FAILED, 'workflowTaskFailedEventAttributes', {
    scheduledEventId: wft.scheduledEventId,
    startedEventId: wft.startedEventId,
    cause: how.cause,
    failure: how.failure,
    identity: how.identity,
  });
}
