/**
 * Workflow task lifecycle: scheduling (normal or sticky queue), dispatch to a poller (which writes
 * WorkflowTaskStarted), deadlines (delayed start, sticky schedule-to-start, start-to-close), failure
 * and sticky bookkeeping. At most one workflow task per run is in flight; events that arrive while
 * it is started are buffered. The task's own history events are written by workflow-task-events.ts.
 * Completion, which applies the worker's commands, sits above this (workflow-task-completion.ts).
 */
import type { EncodedResponse } from '../proto/codec';
import type { Engine } from './engine';
import { appendGroup, flushBuffered, type PendingEvent } from './history';
import type { PollerInfo } from './matching';
import { requeueDeliveredQueries, takeAttachedQueries } from './queries';
import { isOpen, type RunState, type WorkflowTaskState } from './state';
import { redeliverUpdates, takeUpdateMessages } from './update-protocol';
import {
  recordStarted,
  writeEnding,
  writeScheduled,
  writeScheduleToStartTimedOut,
  type TaskEnding,
} from './workflow-task-events';
import { startedTaskResponse, type WorkflowQueuedTask } from './workflow-task-response';

/** A sticky queue nobody polled for this long belongs to a worker that is gone. */
const STICKY_WORKER_GRACE_MS = 10_000;

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
  writeScheduleToStartTimedOut(engine, run, wft);
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

function timeOutStartedWorkflowTask(engine: Engine, run: RunState, wft: WorkflowTaskState): void {
  failStartedWorkflowTask(engine, run, wft, { timedOut: true });
}

interface TaskFailure extends TaskEnding {
  /** Attempt of the follow-up task; defaults to the failed attempt + 1. */
  nextAttempt?: number;
  backoffMs?: number;
}

export function failStartedWorkflowTask(engine: Engine, run: RunState, wft: WorkflowTaskState, how: TaskFailure): void {
  run.closeAttempted = false;
  // Only the first failure of a streak is recorded; retries stay transient until one completes.
  if (wft.attempt === 1 || how.nextAttempt === 1) writeEnding(engine, run, wft, how);
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
