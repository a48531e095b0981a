/**
 * Starting a workflow: the request's validation, the run it resolves to (workflow-id-policy.ts), and
 * the StartWorkflowExecution RPC with eager start.
 */
import { randomUUID } from 'node:crypto';
import { invalidArgument, requireString } from '../errors';
import type { EncodedResponse } from '../proto/codec';
import { durationMs } from '../proto/time';
import type { Duration, Message, Payload, Payloads } from '../proto/types';
import { resendEagerWorkflowTask, startEagerWorkflowTask } from './eager-dispatch';
import type { Engine } from './engine';
import { createRun, type CreateRunParams } from './executions';
import { validateRetryPolicy } from './retry';
import type { RunState } from './state';
import { resolveExisting } from './workflow-id-policy';
import { scheduleWorkflowTask } from './workflow-task';
import { withWorkflowTask } from './workflow-task-response';

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

export function startParams(engine: Engine, request: StartWorkflowExecutionRequest): CreateRunParams {
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
