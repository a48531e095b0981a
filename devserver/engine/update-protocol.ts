/**
 * The update protocol between server and worker: requests go out as messages on a workflow task;
 * the worker answers with Acceptance / Rejection / Response messages (accept and complete are
 * paired with ProtocolMessage commands and become history events, rejections leave no trace in
 * history). Clients wait on `updateTopic` for the stage they asked for (updates.ts).
 */
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
import { type RunState, type UpdateAbort, type UpdateStage, type UpdateState, type WorkflowTaskState } from './state';

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

/**
 * Decodes the worker's protocol messages; returns an error message if one is unusable. An answer for an update the
 * server no longer holds (rejected as unprocessed, aborted with a refused completion) brings it back from the
 * request the answer carries, as the real server's `TryResurrect` does.
 */
export function parseMessages(engine: Engine, run: RunState, messages: ProtocolMessage[]): ParsedMessages | string {
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
    if (!unpacked.typeName.startsWith('temporal.api.update.v1.'))
      return `unsupported protocol message ${unpacked.typeName}`;
    if (!run.updates[protocolInstanceId] && !resurrect(engine, run, protocolInstanceId, unpacked)) {
      return `update ${protocolInstanceId} wasn't found on the server. This is most likely a transient error which will be resolved automatically by retries`;
    }
    parsed.set(id, { id, protocolInstanceId, typeName: unpacked.typeName, body: unpacked.message });
  }
  return parsed;
}

function resurrect(engine: Engine, run: RunState, updateId: string, answer: { typeName: string; message: Message }) {
  const { typeName, message } = answer;
  const request = typeName.endsWith('.Acceptance')
    ? message.acceptedRequest
    : typeName.endsWith('.Rejection')
      ? message.rejectedRequest
      : undefined;
  if (!request) return false;
  run.updates[updateId] = { updateId, request: request as UpdateRequest, stage: 'ADMITTED', delivered: true };
  engine.touch(run);
  return true;
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
    rejectUpdate(engine, run, update, body.failure as Failure | undefined);
  }
}

/**
 * A rejection leaves no trace: the real server drops the update from its registry and has no record of it in
 * mutable state, so the same ID again is a new update, and once the run closed, one it never saw. Its waiting
 * callers still get the rejection (they hold the update).
 */
function rejectUpdate(engine: Engine, run: RunState, update: UpdateState, failure: Failure | undefined): void {
  delete run.updates[update.updateId];
  completeUpdate(engine, run, update, { failure });
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

/** The real server's rejection of an update its worker received and left unanswered (`update/errors_failures.go`). */
const UNPROCESSED_UPDATE: Failure = {
  message:
    "Workflow Update is rejected because it wasn't processed by worker. Probably, Workflow Update is not supported by the worker.",
  source: 'Server',
  applicationFailureInfo: { type: 'UnprocessedUpdate', nonRetryable: true },
};

function isSent(update: UpdateState): boolean {
  return update.stage === 'ADMITTED' && update.delivered;
}

/**
 * A completion must accept or reject every update its worker received: one left unanswered (an old SDK, an SDK
 * bug) would otherwise go out again and again, so the real server rejects it (`RejectUnprocessed`), unless the
 * completion was a heartbeat or closed the run.
 */
export function rejectUnprocessedUpdates(engine: Engine, run: RunState): void {
  for (const update of Object.values(run.updates)) {
    if (isSent(update)) rejectUpdate(engine, run, update, UNPROCESSED_UPDATE);
  }
}

function abortUpdate(engine: Engine, run: RunState, update: UpdateState, reason: UpdateAbort): void {
  update.aborted = reason;
  update.request = { meta: update.request.meta };
  engine.touch(run);
  engine.notify(updateTopic(run.runId, update.updateId));
}

/**
 * The server refused a completion (a bad command, or UNHANDLED_COMMAND): the updates its task carried are aborted
 * rather than sent again, since the worker saw them (`AbortReasonWorkflowTaskFailed`), and forgotten, as the real
 * server clears its registry. Those admitted meanwhile go out with the next task (the real server aborts them with
 * a retryable error, and its frontend's retry admits them again).
 */
export function abortSentUpdates(engine: Engine, run: RunState): void {
  for (const update of Object.values(run.updates)) {
    if (!isSent(update)) continue;
    delete run.updates[update.updateId];
    abortUpdate(engine, run, update, 'WORKFLOW_TASK_FAILED');
  }
}

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
      abortUpdate(engine, run, update, run.nextRunId ? 'RUN_CONTINUING' : 'RUN_CLOSED');
    }
  }
}
