/**
 * The update protocol between server and worker: requests go out as messages on a workflow task;
 * the worker answers with Acceptance / Rejection / Response messages (accept and complete are
 * paired with ProtocolMessage commands and become history events, rejections leave no trace in
 * history). Clients wait on `updateTopic` for the stage they asked for (updates.ts).
 */
import { packAny, unpackAny } from '../proto/codec';
import { enums, type Failure, type Message, type ProtocolMessage, type UpdateOutcome } from '../proto/types';
import type { Engine } from './engine';
import { appendEvent } from './history';
import { type RunState, type UpdateStage, type UpdateState, type WorkflowTaskState } from './state';

const E = enums.EventType;
const REQUEST_TYPE = 'temporal.api.update.v1.Request';

export interface ParsedMessage {
  id: string;
  protocolInstanceId: string;
  typeName: string;
  body: Message;
}

export type ParsedMessages = Map<string, ParsedMessage>;

export function updateTopic(runId: string, updateId: string): string {
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

/** The real server's outcome for an accepted update whose run closed first (`update/errors_failures.go`). */
const ACCEPTED_UPDATE_COMPLETED_WORKFLOW: Failure = {
  message: 'Workflow Update failed because the Workflow completed before the Update completed.',
  source: 'Server',
  applicationFailureInfo: { type: 'AcceptedUpdateCompletedWorkflow', nonRetryable: true },
};

/**
 * A closing run aborts its unfinished updates, as the real server does (`update/abort_reason.go`): an accepted
 * one completes with the AcceptedUpdateCompletedWorkflow failure (no event is written); one not accepted yet
 * (admitted, or sent with the closing task) is marked aborted, and its callers get an error (updates.ts).
 */
export function onRunClosedForUpdates(engine: Engine, run: RunState): void {
  for (const update of Object.values(run.updates)) {
    if (update.stage === 'ACCEPTED') {
      completeUpdate(engine, run, update, { failure: ACCEPTED_UPDATE_COMPLETED_WORKFLOW });
    } else if (update.stage === 'ADMITTED') {
      update.aborted = run.nextRunId ? 'RUN_CONTINUING' : 'RUN_CLOSED';
      update.request = { meta: update.request.meta };
      engine.touch(run);
      engine.notify(updateTopic(run.runId, update.updateId));
    }
  }
}
