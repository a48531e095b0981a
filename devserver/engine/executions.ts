/**
 * Run lifecycle: creation (WorkflowExecutionStarted), close bookkeeping, terminate, the run /
 * execution timeouts and the next attempt of a retried workflow.
 */
import { randomUUID } from 'node:crypto';
import { msToDuration, msToTimestamp } from '../proto/time';
import { enums, type Failure, type Message, type Payload, type Payloads } from '../proto/types';
import { activityKey } from './activities';
import type { Engine } from './engine';
import { appendEvent, closedTopic, flushBuffered } from './history';
import { releaseWaitingQueries } from './queries';
import { isOpen, releaseClosedHistory, type RunState } from './state';
import { timerKey } from './timers';
import { onRunClosedForUpdates } from './update-protocol';
import { planWorkflowRetry, startedAttributes, type WorkflowRetryPlan } from './workflow-retry';
import { scheduleWorkflowTask, workflowTaskKey } from './workflow-task';
import { writeEnding } from './workflow-task-events';

const E = enums.EventType;
const STATUS = enums.WorkflowExecutionStatus;
const DEFAULT_WORKFLOW_TASK_TIMEOUT_MS = 10_000;
/** Signal/cancel request IDs remembered per run for dedupe. */
const REMEMBERED_REQUEST_IDS = 1000;

export interface CreateRunParams {
  runId?: string;
  workflowId: string;
  workflowType: string;
  taskQueue: string;
  input?: Payloads;
  header?: Message;
  memo: Record<string, Payload>;
  searchAttributes: Record<string, Payload>;
  runTimeoutMs: number;
  executionTimeoutMs: number;
  /** Inherited across continue-as-new and retries; computed from executionTimeoutMs otherwise. */
  executionDeadline?: number;
  workflowTaskTimeoutMs: number;
  identity: string;
  requestId: string;
  firstExecutionRunId?: string;
  continuedExecutionRunId?: string;
  initiator?: number;
  retryPolicy?: Message;
  attempt?: number;
  lastCompletionResult?: Payloads;
  continuedFailure?: Failure;
  firstWorkflowTaskBackoffMs?: number;
  /** The start asked for eager execution and got it: its first workflow task goes back in the answer. */
  eagerExecutionAccepted?: boolean;
}

export function runTimeoutKey(runId: string): string {
  return `run:${runId}`;
}

function newRunState(engine: Engine, params: CreateRunParams): RunState {
  const now = engine.now();
  const runId = params.runId ?? randomUUID();
  const runTimeoutMs = params.runTimeoutMs || params.executionTimeoutMs;
  return {
    workflowId: params.workflowId,
    runId,
    firstExecutionRunId: params.firstExecutionRunId ?? runId,
    workflowType: params.workflowType,
    taskQueue: params.taskQueue,
    createdSeq: engine.nextRunSeq(),
    status: STATUS.WORKFLOW_EXECUTION_STATUS_RUNNING,
    startTime: now,
    executionTime: now + (params.firstWorkflowTaskBackoffMs ?? 0),
    startRequestId: params.requestId,
    requestIds: [],
    workflowTaskTimeoutMs: Math.min(
      params.workflowTaskTimeoutMs || DEFAULT_WORKFLOW_TASK_TIMEOUT_MS,
      runTimeoutMs > 0 ? runTimeoutMs : Infinity
    ),
    runTimeoutMs,
    executionTimeoutMs: params.executionTimeoutMs,
    runDeadline: runTimeoutMs > 0 ? now + runTimeoutMs : undefined,
    executionDeadline:
      params.executionDeadline ?? (params.executionTimeoutMs > 0 ? now + params.executionTimeoutMs : undefined),
    memo: { ...params.memo },
    searchAttributes: { ...params.searchAttributes },
    wftSeq: 0,
    nextWftAttempt: 1,
    lastCompletedStartedEventId: 0,
    buffered: [],
    activities: {},
    timers: {},
    updates: {},
    cancelRequested: false,
    history: [],
    encodedHistory: [],
    historySizeBytes: 0,
  };
}

function startedEventAttributes(run: RunState, params: CreateRunParams): Record<string, unknown> {
  const nonEmpty = <T extends object>(fields: T): T | undefined =>
    Object.keys(fields).length > 0 ? fields : undefined;
  const backoff = params.firstWorkflowTaskBackoffMs;
  return {
    workflowId: run.workflowId,
    workflowType: { name: run.workflowType },
    taskQueue: { name: run.taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    input: params.input,
    workflowExecutionTimeout: msToDuration(run.executionTimeoutMs),
    workflowRunTimeout: msToDuration(run.runTimeoutMs),
    workflowTaskTimeout: msToDuration(run.workflowTaskTimeoutMs),
    continuedExecutionRunId: params.continuedExecutionRunId,
    initiator: params.initiator,
    continuedFailure: params.continuedFailure,
    lastCompletionResult: params.lastCompletionResult,
    originalExecutionRunId: run.runId,
    identity: params.identity,
    firstExecutionRunId: run.firstExecutionRunId,
    retryPolicy: params.retryPolicy,
    attempt: params.attempt ?? 1,
    workflowExecutionExpirationTime:
      run.executionDeadline === undefined ? undefined : msToTimestamp(run.executionDeadline),
    firstWorkflowTaskBackoff: backoff ? msToDuration(backoff) : undefined,
    eagerExecutionAccepted: params.eagerExecutionAccepted || undefined,
    memo: nonEmpty(run.memo) && { fields: run.memo },
    searchAttributes: nonEmpty(run.searchAttributes) && { indexedFields: run.searchAttributes },
    header: params.header,
  };
}

/** Creates a run with its WorkflowExecutionStarted event; the caller schedules the first workflow task. */
export function createRun(engine: Engine, params: CreateRunParams): RunState {
  const run = newRunState(engine, params);
  engine.addRun(run);
  appendEvent(
    engine,
    run,
    E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
    'workflowExecutionStartedEventAttributes',
    startedEventAttributes(run, params)
  );
  armRunTimeout(engine, run);
  return run;
}

export function armRunTimeout(engine: Engine, run: RunState): void {
  const at = Math.min(run.runDeadline ?? Infinity, run.executionDeadline ?? Infinity);
  if (at === Infinity || !isOpen(run)) return;
  const { runId } = run;
  engine.scheduler.set(runTimeoutKey(runId), at, () => {
    const current = engine.runs.get(runId);
    if (current && isOpen(current)) timeOutRun(engine, current);
  });
}

function timeOutRun(engine: Engine, run: RunState): void {
  flushBuffered(engine, run);
  const runTimedOut = run.runDeadline !== undefined && run.runDeadline <= engine.now();
  const executionTimedOut = run.executionDeadline !== undefined && run.executionDeadline <= engine.now();
  const failure: Failure = {
    message: 'workflow run timed out',
    timeoutFailureInfo: { timeoutType: enums.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE },
  };
  // Only a run timeout is retried; the execution timeout bounds all attempts.
  const retry =
    runTimedOut && !executionTimedOut
      ? planWorkflowRetry(engine, run, failure)
      : { retryState: enums.RetryState.RETRY_STATE_TIMEOUT };
  appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, 'workflowExecutionTimedOutEventAttributes', {
    retryState: retry.newRunId ? retry.retryState : enums.RetryState.RETRY_STATE_TIMEOUT,
    newExecutionRunId: retry.newRunId,
  });
  run.nextRunId = retry.newRunId;
  closeRun(engine, run, STATUS.WORKFLOW_EXECUTION_STATUS_TIMED_OUT);
  startWorkflowRetry(engine, run, retry, failure);
}

/**
 * The first-task backoff of a run that follows `previous` (continue-as-new, workflow retry): the
 * real server holds it back until `workflowIdReuseMinimalInterval` has passed since the previous
 * run began executing, so a chain of instant runs cannot spin.
 */
export function chainedRunBackoffMs(engine: Engine, previous: RunState, backoffMs: number | undefined): number {
  const lifetime = engine.now() - previous.executionTime;
  const minimum = engine.workflowIdReuseMinimalIntervalMs;
  return lifetime + (backoffMs ?? 0) < minimum ? minimum - lifetime : (backoffMs ?? 0);
}

/** Starts the next attempt; call after the failed run's close event is written. */
export function startWorkflowRetry(engine: Engine, run: RunState, plan: WorkflowRetryPlan, failure: Failure): void {
  if (!plan.newRunId) return;
  const started = startedAttributes(run);
  const backoffMs = chainedRunBackoffMs(engine, run, plan.delayMs);
  const next = createRun(engine, {
    runId: plan.newRunId,
    workflowId: run.workflowId,
    workflowType: run.workflowType,
    taskQueue: run.taskQueue,
    input: started.input as Payloads | undefined,
    header: started.header as Message | undefined,
    memo: run.memo,
    searchAttributes: run.searchAttributes,
    runTimeoutMs: run.runTimeoutMs,
    executionTimeoutMs: run.executionTimeoutMs,
    executionDeadline: run.executionDeadline,
    workflowTaskTimeoutMs: run.workflowTaskTimeoutMs,
    identity: '',
    requestId: randomUUID(),
    firstExecutionRunId: run.firstExecutionRunId,
    continuedExecutionRunId: run.runId,
    initiator: enums.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_RETRY,
    retryPolicy: started.retryPolicy as Message,
    attempt: Number(started.attempt ?? 1) + 1,
    continuedFailure: failure,
    firstWorkflowTaskBackoffMs: backoffMs,
  });
  scheduleWorkflowTask(engine, next, backoffMs);
}

/** Bookkeeping once the close event is written: nothing of the run stays scheduled or queued. */
export function closeRun(engine: Engine, run: RunState, status: number): void {
  run.status = status;
  run.closeTime = engine.now();
  run.wft = undefined;
  run.sticky = undefined;
  run.buffered = [];
  engine.scheduler.clear(workflowTaskKey(run.runId));
  engine.scheduler.clear(runTimeoutKey(run.runId));
  for (const activity of Object.values(run.activities)) {
    engine.scheduler.clear(activityKey(run.runId, activity.scheduledEventId));
  }
  for (const timerId of Object.keys(run.timers)) engine.scheduler.clear(timerKey(run.runId, timerId));
  run.activities = {};
  run.timers = {};
  releaseClosedHistory(run);
  engine.touch(run);
  engine.notify(closedTopic(run.runId));
  onRunClosedForUpdates(engine, run);
  releaseWaitingQueries(engine, run);
}

export function terminateRun(
  engine: Engine,
  run: RunState,
  reason: string,
  details: Payloads | undefined,
  identity: string
): void {
  const wft = run.wft;
  if (wft && wft.startedEventId !== 0) {
    writeEnding(engine, run, wft, {
      cause: enums.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
      identity,
    });
  }
  flushBuffered(engine, run);
  appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, 'workflowExecutionTerminatedEventAttributes', {
    reason,
    details,
    identity,
  });
  closeRun(engine, run, STATUS.WORKFLOW_EXECUTION_STATUS_TERMINATED);
}

/** Whether the run has seen this request ID (the request is a retry). */
export function isKnownRequestId(run: RunState, requestId: string | undefined): boolean {
  return !!requestId && run.requestIds.includes(requestId);
}

/** Remembers a request ID; returns false if it was seen before (the request is a retry). */
export function rememberRequestId(run: RunState, requestId: string | undefined): boolean {
  if (!requestId) return true;
  if (isKnownRequestId(run, requestId)) return false;
  run.requestIds.push(requestId);
  if (run.requestIds.length > REMEMBERED_REQUEST_IDS) run.requestIds.shift();
  return true;
}

/** Retention: closed runs older than `retentionMs` disappear, as on a real server. */
export function deleteExpiredRuns(engine: Engine, retentionMs: number): void {
  const cutoff = engine.now() - retentionMs;
  for (const run of [...engine.runs.values()]) {
    if (run.closeTime !== undefined && run.closeTime < cutoff) engine.deleteRun(run);
  }
}
