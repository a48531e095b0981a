/**
 * Client operations on a workflow's runs: signal, signal-with-start, cancel request, terminate,
 * delete. Starting is in workflow-start.ts.
 */
import { requireString, workflowAlreadyCompleted, workflowClosing } from '../errors';
import { enums, type Message, type Payloads, type WorkflowExecutionRef } from '../proto/types';
import type { Engine } from './engine';
import { createRun, isKnownRequestId, rememberRequestId, terminateRun } from './executions';
import { appendGroup, pending } from './history';
import { isOpen, type RunState } from './state';
import { resolveExisting } from './workflow-id-policy';
import { startParams, type StartWorkflowExecutionRequest } from './workflow-start';
import { isClosing, recordExternalEvents, scheduleWorkflowTask } from './workflow-task';

const E = enums.EventType;
const CONFLICT = enums.WorkflowIdConflictPolicy;

export interface SignalWithStartRequest extends StartWorkflowExecutionRequest {
  signalName?: string;
  signalInput?: Payloads;
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
  engine.store?.requestErasure();
  return {};
}
