/**
 * Client operations on workflows: start (ID reuse / conflict policies, request-ID dedupe),
 * signal, signal-with-start, cancel request, terminate, delete.
 */
import { randomUUID } from 'node:crypto';
import { DevServerError, invalidArgument, requireString, workflowAlreadyCompleted, workflowClosing } from '../errors';
import type { EncodedResponse } from '../proto/codec';
import { durationMs } from '../proto/time';
import {
  enums,
  type Duration,
  type Message,
  type Payload,
  type Payloads,
  type WorkflowExecutionRef,
} from '../proto/types';
import type { Engine } from './engine';
import { createRun, isKnownRequestId, rememberRequestId, terminateRun, type CreateRunParams } from './executions';
import { appendGroup, pending } from './history';
import { validateRetryPolicy } from './retry';
import { isOpen, type RunState } from './state';
import { resendEagerWorkflowTask, startEagerWorkflowTask } from './eager-dispatch';
import { isClosing, recordExternalEvents, scheduleWorkflowTask } from './workflow-task';
import { withWorkflowTask } from './workflow-task-response';

const E = enums.EventType;
const REUSE = enums.WorkflowIdReusePolicy;
const CONFLICT = enums.WorkflowIdConflictPolicy;
const STATUS = enums.WorkflowExecutionStatus;

export interface StartWorkflowExecutionRequest {
  workflowId?: string;
  workflowType?: { name?: string };
  taskQueue?: { name?: string };
  input?: Payloads;
  workflowExecutionTimeout?: Duration;
  workflowRunTimeout?: Duration;
  workflowTaskTimeout?: Duration;
  identity?: string;
  requestId?: string;
  workflowIdReusePolicy?: number;
  workflowIdConflictPolicy?: number;
  retryPolicy?: Message;
  cronSchedule?: string;
  memo?: { fields?: Record<string, Payload> };
  searchAttributes?: { indexedFields?: Record<string, Payload> };
  header?: Message;
  workflowStartDelay?: Duration;
  requestEagerExecution?: boolean;
}

export interface SignalWithStartRequest extends StartWorkflowExecutionRequest {
  signalName?: string;
  signalInput?: Payloads;
}

function startParams(engine: Engine, request: StartWorkflowExecutionRequest): CreateRunParams {
  const workflowId = requireString(request.workflowId, 'WorkflowId');
  const workflowType = requireString(request.workflowType?.name, 'WorkflowType');
  const taskQueue = requireString(request.taskQueue?.name, 'TaskQueue');
  if (request.cronSchedule) throw invalidArgument('The ConvEngine dev server does not support cron schedules.');
  for (const d of [request.workflowExecutionTimeout, request.workflowRunTimeout, request.workflowTaskTimeout]) {
    if (durationMs(d) < 0) throw invalidArgument('Timeouts cannot be negative.');
  }
  if (durationMs(request.workflowStartDelay) < 0) {
    throw invalidArgument('An invalid WorkflowStartDelaySeconds is set on request.');
  }
  const retryProblem = validateRetryPolicy(request.retryPolicy);
  if (retryProblem) throw invalidArgument(retryProblem);
  const saProblem = engine.searchAttributes.validate(request.searchAttributes?.indexedFields);
  if (saProblem) throw invalidArgument(saProblem);
  return {
    workflowId,
    workflowType,
    taskQueue,
    input: request.input,
    header: request.header,
    memo: request.memo?.fields ?? {},
    searchAttributes: request.searchAttributes?.indexedFields ?? {},
    runTimeoutMs: durationMs(request.workflowRunTimeout),
    executionTimeoutMs: durationMs(request.workflowExecutionTimeout),
    workflowTaskTimeoutMs: durationMs(request.workflowTaskTimeout),
    identity: request.identity ?? '',
    requestId: request.requestId || randomUUID(),
    retryPolicy: request.retryPolicy,
    firstWorkflowTaskBackoffMs: durationMs(request.workflowStartDelay),
  };
}

function alreadyStarted(run: RunState, message: string): DevServerError {
  return new DevServerError('ALREADY_EXISTS', message, {
    typeName: 'temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure',
    message: { startRequestId: run.startRequestId, runId: run.runId },
  });
}

type Resolution = { kind: 'start' } | { kind: 'existing'; run: RunState; started: boolean };

/** The conflict policy in force; the legacy reuse policy TERMINATE_IF_RUNNING means TERMINATE_EXISTING. */
function effectiveConflictPolicy(request: StartWorkflowExecutionRequest): number {
  const conflict = request.workflowIdConflictPolicy ?? CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED;
  if (request.workflowIdReusePolicy !== REUSE.WORKFLOW_ID_REUSE_POLICY_TERMINATE_IF_RUNNING) return conflict;
  if (conflict !== CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED) {
    throw invalidArgument(
      'WorkflowIdReusePolicy TERMINATE_IF_RUNNING cannot be used together with a WorkflowIdConflictPolicy.'
    );
  }
  return CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING;
}

function resolveRunning(engine: Engine, current: RunState, request: StartWorkflowExecutionRequest): Resolution {
  const conflict = effectiveConflictPolicy(request);
  if (conflict === CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING) {
    return { kind: 'existing', run: current, started: false };
  }
  if (conflict === CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING) {
    const reason = 'terminated by WorkflowIdConflictPolicy TERMINATE_EXISTING';
    terminateRun(engine, current, reason, undefined, request.identity ?? '');
    return { kind: 'start' };
  }
  throw alreadyStarted(
    current,
    `Workflow execution is already running. WorkflowId: ${current.workflowId}, RunId: ${current.runId}.`
  );
}

function resolveClosed(current: RunState, request: StartWorkflowExecutionRequest): Resolution {
  const reuse = request.workflowIdReusePolicy ?? REUSE.WORKFLOW_ID_REUSE_POLICY_UNSPECIFIED;
  const workflowId = current.workflowId;
  if (reuse === REUSE.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE) {
    throw alreadyStarted(
      current,
      `Workflow execution already finished and WorkflowIdReusePolicy is REJECT_DUPLICATE. WorkflowId: ${workflowId}.`
    );
  }
  const succeeded =
    current.status === STATUS.WORKFLOW_EXECUTION_STATUS_COMPLETED ||
    current.status === STATUS.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW;
  if (reuse === REUSE.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY && succeeded) {
    throw alreadyStarted(
      current,
      'Workflow execution already finished successfully and WorkflowIdReusePolicy is ALLOW_DUPLICATE_FAILED_ONLY. ' +
        `WorkflowId: ${workflowId}.`
    );
  }
  return { kind: 'start' };
}

/** Applies request-ID dedupe and the ID reuse / conflict policies against the current run. */
function resolveExisting(
  engine: Engine,
  workflowId: string,
  requestId: string,
  request: StartWorkflowExecutionRequest
): Resolution {
  const current = engine.currentRun(workflowId);
  if (!current) return { kind: 'start' };
  if (current.startRequestId === requestId) return { kind: 'existing', run: current, started: true };
  return isOpen(current) ? resolveRunning(engine, current, request) : resolveClosed(current, request);
}

function startResponse(run: RunState, started: boolean): Message {
  return { runId: run.runId, started, status: run.status };
}

/** The run a start resolves to: a new one (`created`), or the existing one its policies or request ID point at. */
function startOrResolve(
  engine: Engine,
  request: StartWorkflowExecutionRequest,
  eager = false
): { run: RunState; started: boolean; created: boolean } {
  const params = startParams(engine, request);
  const resolution = resolveExisting(engine, params.workflowId, params.requestId, request);
  if (resolution.kind === 'existing') return { run: resolution.run, started: resolution.started, created: false };
  const run = createRun(engine, { ...params, eagerExecutionAccepted: eager });
  scheduleWorkflowTask(engine, run, params.firstWorkflowTaskBackoffMs ?? 0);
  return { run, started: true, created: true };
}

/** A start inside another operation (update-with-start): never eager. */
export function startWorkflowExecution(engine: Engine, request: StartWorkflowExecutionRequest): Message {
  return engine.transact(() => {
    const { run, started } = startOrResolve(engine, request);
    return startResponse(run, started);
  });
}

/**
 * The StartWorkflowExecution RPC. Eager start, as on the real server: a start that asks for it (a
 * client sharing its connection with a worker of the task queue) and whose first workflow task is
 * not held back by a start delay gets that task, started for the client's identity, in its answer.
 * The same request again (a client retrying a lost answer) gets the same task while it is still
 * the run's first, first-attempt task; a start that resolved to another run gets none.
 */
export function startWorkflowExecutionRpc(
  engine: Engine,
  request: StartWorkflowExecutionRequest
): Message | EncodedResponse {
  const eager =
    request.requestEagerExecution === true && engine.eagerWorkflowStart && durationMs(request.workflowStartDelay) <= 0;
  return engine.transact(() => {
    const { run, started, created } = startOrResolve(engine, request, eager);
    const response = startResponse(run, started);
    if (!eager || !started) return response;
    const task = created
      ? startEagerWorkflowTask(engine, run, request.identity ?? '')
      : resendEagerWorkflowTask(engine, run);
    return task ? withWorkflowTask('start', response, task) : response;
  });
}

function signalEvent(
  engine: Engine,
  name: string,
  input: Payloads | undefined,
  identity?: string,
  header?: Message,
  requestId?: string
) {
  return pending(engine, E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, 'workflowExecutionSignaledEventAttributes', {
    signalName: name,
    input,
    identity,
    header,
    requestId,
  });
}

export function signalWithStartWorkflowExecution(engine: Engine, request: SignalWithStartRequest): Message {
  const signalName = requireString(request.signalName, 'SignalName');
  const params = startParams(engine, request);
  return engine.transact(() => {
    const current = engine.currentRun(params.workflowId);
    const terminate = request.workflowIdConflictPolicy === CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING;
    if (current && isOpen(current) && !terminate) {
      if (admitSignal(current, request.requestId)) {
        recordExternalEvents(engine, current, [
          signalEvent(engine, signalName, request.signalInput, request.identity, request.header),
        ]);
      }
      return { runId: current.runId, started: false };
    }
    const resolution = resolveExisting(engine, params.workflowId, params.requestId, {
      ...request,
      workflowIdConflictPolicy: terminate ? CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING : undefined,
    });
    if (resolution.kind === 'existing') return { runId: resolution.run.runId, started: false };
    const run = createRun(engine, params);
    rememberRequestId(run, request.requestId);
    appendGroup(engine, run, [signalEvent(engine, signalName, request.signalInput, request.identity, request.header)]);
    scheduleWorkflowTask(engine, run, params.firstWorkflowTaskBackoffMs ?? 0);
    return { runId: run.runId, started: true };
  });
}

function requireOpenRun(engine: Engine, execution: WorkflowExecutionRef | undefined): RunState {
  requireString(execution?.workflowId, 'WorkflowId');
  const run = engine.requireRun(execution);
  if (!isOpen(run)) throw workflowAlreadyCompleted();
  return run;
}

export interface SignalWorkflowExecutionRequest {
  workflowExecution?: WorkflowExecutionRef;
  signalName?: string;
  input?: Payloads;
  identity?: string;
  requestId?: string;
  header?: Message;
}

/**
 * A signal to an open run, as the real server checks it (`ValidateSignal`): false for a retry of one it recorded (its
 * request ID), refused while the run is closing; otherwise its request ID is remembered and it may be recorded.
 */
function admitSignal(run: RunState, requestId: string | undefined): boolean {
  if (isKnownRequestId(run, requestId)) return false;
  if (isClosing(run)) throw workflowClosing();
  return rememberRequestId(run, requestId);
}

export function signalWorkflowExecution(engine: Engine, request: SignalWorkflowExecutionRequest): Message {
  const signalName = requireString(request.signalName, 'SignalName');
  const run = requireOpenRun(engine, request.workflowExecution);
  engine.transact(() => {
    if (!admitSignal(run, request.requestId)) return;
    recordExternalEvents(engine, run, [
      signalEvent(engine, signalName, request.input, request.identity, request.header, request.requestId),
    ]);
  });
  return {};
}

export interface RequestCancelWorkflowExecutionRequest {
  workflowExecution?: WorkflowExecutionRef;
  identity?: string;
  requestId?: string;
  reason?: string;
}

export function requestCancelWorkflowExecution(
  engine: Engine,
  request: RequestCancelWorkflowExecutionRequest
): Message {
  const run = requireOpenRun(engine, request.workflowExecution);
  engine.transact(() => {
    if (run.cancelRequested) return;
    run.cancelRequested = true;
    rememberRequestId(run, request.requestId);
    recordExternalEvents(engine, run, [
      pending(
        engine,
        E.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED,
        'workflowExecutionCancelRequestedEventAttributes',
        {
          cause: request.reason,
          identity: request.identity,
        }
      ),
    ]);
  });
  return {};
}

export interface TerminateWorkflowExecutionRequest {
  workflowExecution?: WorkflowExecutionRef;
  reason?: string;
  details?: Payloads;
  identity?: string;
}

export function terminateWorkflowExecution(engine: Engine, request: TerminateWorkflowExecutionRequest): Message {
  const run = requireOpenRun(engine, request.workflowExecution);
  engine.transact(() => terminateRun(engine, run, request.reason ?? '', request.details, request.identity ?? ''));
  return {};
}

export function deleteWorkflowExecution(
  engine: Engine,
  request: { workflowExecution?: WorkflowExecutionRef }
): Message {
  requireString(request.workflowExecution?.workflowId, 'WorkflowId');
  const run = engine.requireRun(request.workflowExecution);
  engine.transact(() => {
    if (isOpen(run)) terminateRun(engine, run, 'Delete workflow execution', undefined, '');
    engine.deleteRun(run);
  });
  return {};
}
