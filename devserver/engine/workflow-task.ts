/**
 * Workflow task lifecycle: scheduling (normal or sticky queue), dispatch to a poller (which writes
 * WorkflowTaskStarted), deadlines (delayed start, sticky schedule-to-start, start-to-close), failure
 * and sticky bookkeeping. At most one workflow task per run is in flight; events that arrive while
 * it is started are buffered. Completion, which applies the worker's commands, sits above this
 * (workflow-task-completion.ts).
 */
import { randomUUID } from 'node:crypto';
import type { EncodedResponse } from '../proto/codec';
import { msToDuration } from '../proto/time';
import { enums, type Failure, type HistoryEvent, type Message } from '../proto/types';
import type { Engine } from './engine';
import {
  appendEvent,
  appendGroup,
  appendMaterialized,
  encodeEvent,
  flushBuffered,
  materialize,
  pending,
  type PendingEvent,
} from './history';
import type { PollerInfo } from './matching';
import { requeueDeliveredQueries, takeAttachedQueries } from './queries';
import { isOpen, nextEventId, type RunState, type WorkflowTaskState } from './state';
import { workflowTaskToken } from './tokens';
import { redeliverUpdates, takeUpdateMessages } from './update-protocol';
import { workflowTaskResponse, type WorkflowQueuedTask } from './workflow-task-response';

/** A sticky queue nobody polled for this long belongs to a worker that is gone. */
const STICKY_WORKER_GRACE_MS = 10_000;
const E = enums.EventType;

export function workflowTaskKey(runId: string): string {
  return `wft:${runId}`;
}

/** Appends external events now, or buffers them while a workflow task is started; then makes sure a task follows. */
export function recordExternalEvents(engine: Engine, run: RunState, group: PendingEvent[]): void {
  if (!isOpen(run)) return;
  if (run.wft && run.wft.startedEventId !== 0) {
    run.buffered.push(group);
    engine.touch(run);
    return;
  }
  appendGroup(engine, run, group);
  const wft = run.wft;
  if (wft?.speculative) {
    // New events make a waiting speculative task a normal one, as on the real server.
    wft.speculative = false;
    if (wft.notBefore === undefined) writeScheduled(engine, run, wft);
    engine.touch(run);
  }
  scheduleWorkflowTask(engine, run);
}

export function isWorkflowTaskStarted(run: RunState): boolean {
  return run.wft !== undefined && run.wft.startedEventId !== 0;
}

/**
 * The run's close was refused and the task that will most likely close it again is running: the real server
 * refuses new signals and updates meanwhile, with a retryable error (`ValidateSignal`, `updateworkflow/api.go`).
 */
export function isClosing(run: RunState): boolean {
  return run.closeAttempted === true && isWorkflowTaskStarted(run);
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

/**
 * Schedules a workflow task unless one is already in flight. `speculative` (an update's task) keeps
 * its Scheduled/Started events out of history unless the task completes with something to record.
 */
export function scheduleWorkflowTask(engine: Engine, run: RunState, delayMs = 0, speculative = false): void {
  if (!isOpen(run) || run.wft) return;
  const now = engine.now();
  const attempt = run.nextWftAttempt;
  if (run.sticky && !engine.matching.isPolled('workflow', run.sticky.queue, STICKY_WORKER_GRACE_MS)) {
    run.sticky = undefined;
  }
  const sticky = attempt === 1 ? run.sticky : undefined;
  const wft: WorkflowTaskState = {
    seq: ++run.wftSeq,
    attempt,
    scheduledEventId: 0,
    startedEventId: 0,
    queue: sticky ? sticky.queue : run.taskQueue,
    sticky: sticky !== undefined,
    scheduledAt: now,
    deliveredUpdateIds: [],
    deliveredQueryIds: [],
    ...(speculative && attempt === 1 && run.buffered.length === 0 ? { speculative: true } : {}),
  };
  run.wft = wft;
  if (delayMs > 0) {
    wft.notBefore = now + delayMs;
    engine.touch(run);
    armWorkflowTask(engine, run);
    return;
  }
  activateWorkflowTask(engine, run, wft);
}

/** Writes WorkflowTaskScheduled (attempt 1 only; later attempts are transient) and queues the task. */
function activateWorkflowTask(engine: Engine, run: RunState, wft: WorkflowTaskState): void {
  const now = engine.now();
  wft.notBefore = undefined;
  wft.scheduledAt = now;
  if (wft.attempt === 1 && wft.scheduledEventId === 0 && !wft.speculative) writeScheduled(engine, run, wft);
  if (wft.sticky && run.sticky) wft.stickyDeadline = now + run.sticky.scheduleToStartMs;
  engine.touch(run);
  armWorkflowTask(engine, run);
  enqueueWorkflowTask(engine, run, wft);
}

function writeScheduled(engine: Engine, run: RunState, wft: WorkflowTaskState): void {
  const event = appendEvent(
    engine,
    run,
    E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    'workflowTaskScheduledEventAttributes',
    scheduledAttributes(run, wft)
  );
  wft.scheduledEventId = event.eventId;
}

export function enqueueWorkflowTask(engine: Engine, run: RunState, wft: WorkflowTaskState): void {
  const runId = run.runId;
  const { seq, queue } = wft;
  const task: WorkflowQueuedTask = {
    runId,
    dispatch: (poller) => dispatchWorkflowTask(engine, runId, seq, queue, poller),
  };
  engine.defer(() => engine.matching.offer('workflow', queue, task));
}

/** Points the run's single WFT deadline slot at the deadline of the task's current stage. */
export function armWorkflowTask(engine: Engine, run: RunState): void {
  const key = workflowTaskKey(run.runId);
  const wft = run.wft;
  const at = !wft ? undefined : (wft.notBefore ?? (wft.startedEventId ? wft.startDeadline : wft.stickyDeadline));
  if (!wft || at === undefined) {
    engine.scheduler.clear(key);
    return;
  }
  const { runId } = run;
  const { seq } = wft;
  engine.scheduler.set(key, at, () => onWorkflowTaskDeadline(engine, runId, seq));
}

function onWorkflowTaskDeadline(engine: Engine, runId: string, seq: number): void {
  const run = engine.runs.get(runId);
  const wft = run?.wft;
  if (!run || !wft || wft.seq !== seq || !isOpen(run)) return;
  const now = engine.now();
  if (wft.notBefore !== undefined) {
    if (now >= wft.notBefore) activateWorkflowTask(engine, run, wft);
    else armWorkflowTask(engine, run);
    return;
  }
  if (wft.startedEventId === 0) {
    if (wft.stickyDeadline !== undefined && now >= wft.stickyDeadline) stickyScheduleToStartTimeout(engine, run, wft);
    else armWorkflowTask(engine, run);
    return;
  }
  if (wft.startDeadline !== undefined && now >= wft.startDeadline) {
    timeOutStartedWorkflowTask(engine, run, wft);
  } else {
    armWorkflowTask(engine, run);
  }
}

/** Nobody took the task from the sticky queue in time: record it and retry on the normal queue with full history. */
function stickyScheduleToStartTimeout(engine: Engine, run: RunState, wft: WorkflowTaskState): void {
  engine.matching.remove('workflow', wft.queue, (task) => (task as WorkflowQueuedTask).runId === run.runId);
  if (wft.scheduledEventId !== 0) {
    appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, 'workflowTaskTimedOutEventAttributes', {
      scheduledEventId: wft.scheduledEventId,
      startedEventId: 0,
      timeoutType: enums.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
    });
  }
  run.wft = undefined;
  run.sticky = undefined;
  scheduleWorkflowTask(engine, run);
}

/** The run's sticky worker is gone (ShutdownWorker, ResetStickyTaskQueue): move a waiting task to the normal queue. */
export function unstick(engine: Engine, run: RunState): void {
  run.sticky = undefined;
  const wft = run.wft;
  engine.touch(run);
  if (!wft || !wft.sticky || wft.startedEventId !== 0) return;
  engine.matching.remove('workflow', wft.queue, (task) => (task as WorkflowQueuedTask).runId === run.runId);
  wft.queue = run.taskQueue;
  wft.sticky = false;
  wft.stickyDeadline = undefined;
  armWorkflowTask(engine, run);
  if (wft.notBefore === undefined) enqueueWorkflowTask(engine, run, wft);
}

function dispatchWorkflowTask(
  engine: Engine,
  runId: string,
  seq: number,
  queue: string,
  poller: PollerInfo
): EncodedResponse | undefined {
  const run = engine.runs.get(runId);
  const wft = run?.wft;
  if (!run || !wft || !isOpen(run) || wft.seq !== seq || wft.startedEventId !== 0) return undefined;
  if (wft.queue !== queue || wft.notBefore !== undefined) return undefined;
  return engine.transact(() => startWorkflowTask(engine, run, wft, poller));
}

/**
 * Writes WorkflowTaskStarted. Attempts >= 2 and speculative tasks get their Scheduled/Started pair
 * as transient events: numbered after the current history but only written if the task completes.
 */
function recordStarted(engine: Engine, run: RunState, wft: WorkflowTaskState, identity: string): void {
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

/**
 * Starts the task for `poller` and builds its answer. A worker with the run cached (a sticky task,
 * or `cached`: a task returned to the worker that completed the previous one) gets only what
 * happened since its last task.
 */
export function startWorkflowTask(
  engine: Engine,
  run: RunState,
  wft: WorkflowTaskState,
  poller: PollerInfo,
  cached = wft.sticky
): EncodedResponse {
  const now = engine.now();
  recordStarted(engine, run, wft, poller.identity);
  wft.startedAt = now;
  wft.identity = poller.identity;
  wft.stickyDeadline = undefined;
  wft.startDeadline = now + run.workflowTaskTimeoutMs;
  engine.touch(run);
  armWorkflowTask(engine, run);
  engine.stats.workflowTasksDispatched++;
  return startedTaskResponse(
    engine,
    run,
    wft,
    { messages: takeUpdateMessages(engine, run, wft), queries: takeAttachedQueries(engine, run, wft) },
    cached
  );
}

/** The answer that hands a started task to its worker. */
export function startedTaskResponse(
  engine: Engine,
  run: RunState,
  wft: WorkflowTaskState,
  attached: { messages?: unknown[]; queries?: Record<string, unknown> },
  cached: boolean
): EncodedResponse {
  const from = cached ? run.lastCompletedStartedEventId : 0;
  return workflowTaskResponse(engine, run, {
    token: workflowTaskToken(run.runId, wft.seq),
    history: historyFrom(run, from, wft.transientEvents),
    startedEventId: wft.startedEventId,
    attempt: wft.attempt,
    scheduledAt: wft.scheduledAt,
    queries: attached.queries,
    messages: attached.messages,
  });
}

function historyFrom(run: RunState, fromIndex: number, transient: HistoryEvent[] | undefined): Buffer[] {
  const parts = run.encodedHistory.slice(fromIndex);
  for (const event of transient ?? []) parts.push(encodeEvent(event));
  return parts;
}

function timeOutStartedWorkflowTask(engine: Engine, run: RunState, wft: WorkflowTaskState): void {
  failStartedWorkflowTask(engine, run, wft, { timedOut: true });
}

interface TaskFailure {
  cause?: number;
  failure?: Failure;
  identity?: string;
  timedOut?: boolean;
  /** Attempt of the follow-up task; defaults to the failed attempt + 1. */
  nextAttempt?: number;
  backoffMs?: number;
}

export function failStartedWorkflowTask(engine: Engine, run: RunState, wft: WorkflowTaskState, how: TaskFailure): void {
  run.closeAttempted = false;
  // Only the first failure of a streak is recorded; retries stay transient until one completes.
  const record = wft.attempt === 1 || how.nextAttempt === 1;
  if (record) {
    for (const event of wft.transientEvents ?? []) appendMaterialized(engine, run, event);
    if (how.timedOut) {
      appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, 'workflowTaskTimedOutEventAttributes', {
        scheduledEventId: wft.scheduledEventId,
        startedEventId: wft.startedEventId,
        timeoutType: enums.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE,
      });
    } else {
      appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_TASK_FAILED, 'workflowTaskFailedEventAttributes', {
        scheduledEventId: wft.scheduledEventId,
        startedEventId: wft.startedEventId,
        cause: how.cause,
        failure: how.failure,
        identity: how.identity,
      });
    }
  }
  run.wft = undefined;
  engine.scheduler.clear(workflowTaskKey(run.runId));
  run.sticky = undefined;
  run.nextWftAttempt = how.nextAttempt ?? wft.attempt + 1;
  redeliverUpdates(run);
  requeueDeliveredQueries(engine, run, wft);
  flushBuffered(engine, run);
  engine.touch(run);
  scheduleWorkflowTask(engine, run, how.backoffMs ?? 0);
}
