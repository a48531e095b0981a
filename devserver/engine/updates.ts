/**
 * Workflow updates over the protocol-message channel: requests go to the worker as messages on a
 * workflow task; the worker answers with Acceptance / Rejection / Response messages (accept and
 * complete are paired with ProtocolMessage commands and become history events, rejections leave
 * no trace in history).
 */
import { DevServerError, notFound, requireString, workflowAlreadyCompleted } from '../errors';
import { packAny, unpackAny } from '../proto/codec';
import {
  enums,
  type Failure,
  type Message,
  type ProtocolMessage,
  type UpdateOutcome,
  type UpdateRequest,
} from '../proto/types';
import type { Engine } from './engine';
import { appendEvent } from './history';
import type { PollCall } from './matching';
import { isOpen, type RunState, type UpdateStage, type UpdateState, type WorkflowTaskState } from './state';
import { scheduleWorkflowTask } from './workflow-task';

const E = enums.EventType;
const LIFECYCLE = enums.UpdateWorkflowExecutionLifecycleStage;
const STAGE_RANK: Record<UpdateStage, number> = {
  ADMITTED: LIFECYCLE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED,
  ACCEPTED: LIFECYCLE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED,
  COMPLETED: LIFECYCLE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED,
};
const REQUEST_TYPE = 'temporal.api.update.v1.Request';

export interface ParsedMessage {
  id: string;
  protocolInstanceId: string;
  typeName: string;
  body: Message;
}

export type ParsedMessages = Map<string, ParsedMessage>;

function updateTopic(runId: string, updateId: string): string {
  return `update:${runId}:${updateId}`;
}

/** Decodes the worker's protocol messages; returns an error message if one is unusable. */
export function parseMessages(run: RunState, messages: ProtocolMessage[]): ParsedMessages | string {
  const parsed: ParsedMessages = new Map();
  for (const message of messages) {
    const id = message.id ?? '';
    const protocolInstanceId = message.protocolInstanceId ?? '';
    let unpacked: { typeName: string; message: Message };
    try {
      unpacked = unpackAny(message.body);
    } catch (error) {
      return `protocol message ${id} has an unreadable body: ${(error as Error).message}`;
    }
    if (!run.updates[protocolInstanceId]) return `update ${protocolInstanceId} not found`;
    if (!unpacked.typeName.startsWith('temporal.api.update.v1.'))
      return `unsupported protocol message ${unpacked.typeName}`;
    parsed.set(id, { id, protocolInstanceId, typeName: unpacked.typeName, body: unpacked.message });
  }
  return parsed;
}

/**
 * Update requests to hand out with a workflow task. A task with full history also repeats requests
 * already sent, because a worker that lost its cache lost them too.
 */
export function takeUpdateMessages(
  engine: Engine,
  run: RunState,
  wft: WorkflowTaskState
): ProtocolMessage[] | undefined {
  let messages: ProtocolMessage[] | undefined;
  for (const update of Object.values(run.updates)) {
    if (update.stage !== 'ADMITTED' || (update.delivered && wft.sticky)) continue;
    update.delivered = true;
    wft.deliveredUpdateIds.push(update.updateId);
    messages = messages ?? [];
    messages.push({
      id: `${update.updateId}/request`,
      protocolInstanceId: update.updateId,
      eventId: wft.scheduledEventId,
      body: packAny(REQUEST_TYPE, update.request),
    });
  }
  if (messages) engine.touch(run);
  return messages;
}

export function hasUndeliveredUpdates(run: RunState): boolean {
  for (const update of Object.values(run.updates)) if (update.stage === 'ADMITTED' && !update.delivered) return true;
  return false;
}

/** The task that carried the requests failed: they go out again with the next one. */
export function redeliverUpdates(run: RunState): void {
  for (const update of Object.values(run.updates)) if (update.stage === 'ADMITTED') update.delivered = false;
}

function setStage(engine: Engine, run: RunState, update: UpdateState, stage: UpdateStage): void {
  update.stage = stage;
  engine.touch(run);
  engine.notify(updateTopic(run.runId, update.updateId));
}

/** Applies one worker message; `completedEventId` is the WorkflowTaskCompleted it belongs to. */
export function applyProtocolMessage(engine: Engine, run: RunState, message: ParsedMessage): void {
  const update = run.updates[message.protocolInstanceId];
  if (!update || update.stage === 'COMPLETED') return;
  const body = message.body;
  if (message.typeName.endsWith('.Acceptance')) {
    const event = appendEvent(
      engine,
      run,
      E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
      'workflowExecutionUpdateAcceptedEventAttributes',
      {
        protocolInstanceId: update.updateId,
        acceptedRequestMessageId: body.acceptedRequestMessageId,
        acceptedRequestSequencingEventId: body.acceptedRequestSequencingEventId,
        acceptedRequest: body.acceptedRequest ?? update.request,
      }
    );
    update.acceptedEventId = event.eventId;
    setStage(engine, run, update, 'ACCEPTED');
  } else if (message.typeName.endsWith('.Response')) {
    const outcome = body.outcome as UpdateOutcome | undefined;
    appendEvent(
      engine,
      run,
      E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
      'workflowExecutionUpdateCompletedEventAttributes',
      {
        meta: body.meta,
        acceptedEventId: update.acceptedEventId,
        outcome,
      }
    );
    completeUpdate(engine, run, update, outcome ?? {});
  } else if (message.typeName.endsWith('.Rejection')) {
    completeUpdate(engine, run, update, { failure: body.failure as Failure | undefined });
  }
}

function completeUpdate(engine: Engine, run: RunState, update: UpdateState, outcome: UpdateOutcome): void {
  update.outcome = outcome;
  // The request is only needed until the worker decides; keep the run snapshot small.
  update.request = { meta: update.request.meta };
  setStage(engine, run, update, 'COMPLETED');
}

export interface UpdateWorkflowExecutionRequest {
  workflowExecution?: { workflowId?: string; runId?: string };
  waitPolicy?: { lifecycleStage?: number };
  request?: UpdateRequest;
}

export function updateWorkflowExecution(
  engine: Engine,
  request: UpdateWorkflowExecutionRequest,
  call: PollCall
): Promise<Message> {
  const updateId = requireString(request.request?.meta?.updateId, 'UpdateId');
  requireString(request.request?.input?.name, 'Update name');
  if (request.waitPolicy?.lifecycleStage === LIFECYCLE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED) {
    // As the real server answers: a caller must wait for at least ACCEPTED.
    throw new DevServerError(
      'PERMISSION_DENIED',
      'UpdateWorkflowExecution issued asynchronously and waiting on update admitted is not supported.'
    );
  }
  const run = engine.requireRun(request.workflowExecution);
  if (!isOpen(run)) throw workflowAlreadyCompleted();
  engine.transact(() => {
    if (run.updates[updateId]) return;
    admitOneMore(run);
    run.updates[updateId] = {
      updateId,
      request: request.request as UpdateRequest,
      stage: 'ADMITTED',
      delivered: false,
    };
    engine.touch(run);
    scheduleWorkflowTask(engine, run);
  });
  return waitForStage(engine, run, updateId, request.waitPolicy?.lifecycleStage, call);
}

/**
 * The real server's `history.maxInFlightUpdates` (default 10): an update admitted but not yet
 * completed counts, and one more is refused with its error (RESOURCE_EXHAUSTED, cause
 * CONCURRENT_LIMIT), which the SDK client retries.
 */
export const MAX_IN_FLIGHT_UPDATES = 10;

function admitOneMore(run: RunState): void {
  const inFlight = Object.values(run.updates).filter((u) => u.stage !== 'COMPLETED').length;
  if (inFlight < MAX_IN_FLIGHT_UPDATES) return;
  throw new DevServerError(
    'RESOURCE_EXHAUSTED',
    `limit on number of concurrent in-flight updates has been reached (${MAX_IN_FLIGHT_UPDATES})`,
    {
      typeName: 'temporal.api.errordetails.v1.ResourceExhaustedFailure',
      message: {
        cause: enums.ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_CONCURRENT_LIMIT,
        scope: enums.ResourceExhaustedScope.RESOURCE_EXHAUSTED_SCOPE_NAMESPACE,
      },
    }
  );
}

export interface PollWorkflowExecutionUpdateRequest {
  updateRef?: { workflowExecution?: { workflowId?: string; runId?: string }; updateId?: string };
  waitPolicy?: { lifecycleStage?: number };
}

export function pollWorkflowExecutionUpdate(
  engine: Engine,
  request: PollWorkflowExecutionUpdateRequest,
  call: PollCall
): Promise<Message> {
  const updateId = requireString(request.updateRef?.updateId, 'UpdateId');
  const run = engine.requireRun(request.updateRef?.workflowExecution);
  if (!run.updates[updateId]) throw notFound(`update ${updateId} not found`);
  return waitForStage(engine, run, updateId, request.waitPolicy?.lifecycleStage, call);
}

async function waitForStage(
  engine: Engine,
  run: RunState,
  updateId: string,
  wanted: number | undefined,
  call: PollCall
): Promise<Message> {
  const target = Math.max(wanted ?? 0, LIFECYCLE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED);
  for (;;) {
    const update = run.updates[updateId];
    if (!update) throw notFound(`update ${updateId} not found`);
    if (STAGE_RANK[update.stage] >= target) return updateResponse(run, update);
    if (!isOpen(run)) throw workflowAlreadyCompleted();
    if (call.isCancelled()) throw new DevServerError('CANCELLED', 'update call cancelled');
    const notified = await engine.waitFor(updateTopic(run.runId, updateId), call);
    if (!notified) return updateResponse(run, run.updates[updateId] ?? update);
  }
}

function updateResponse(run: RunState, update: UpdateState): Message {
  return {
    updateRef: { workflowExecution: { workflowId: run.workflowId, runId: run.runId }, updateId: update.updateId },
    outcome: update.stage === 'COMPLETED' ? update.outcome : undefined,
    stage: STAGE_RANK[update.stage],
  };
}

/** Wakes every update waiter of a closing run; unfinished updates then fail. */
export function onRunClosedForUpdates(engine: Engine, run: RunState): void {
  for (const update of Object.values(run.updates)) engine.notify(updateTopic(run.runId, update.updateId));
}
