/**
 * A workflow worker played over raw gRPC, for conformance scenarios that no SDK produces on purpose
 * (an update left unanswered, a completion the server refuses): it polls one task queue and answers
 * each workflow task with exactly the commands and protocol messages a test gives it.
 */
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { packAny, unpackAny } from '../../devserver/proto/codec';
import type { Message } from '../../devserver/proto/types';
import type { TestTemporal } from '../support/temporal';
import { RawClient } from './raw-client';

const E = temporal.api.enums.v1;
const UPDATE = 'temporal.api.update.v1';

export const COMPLETE_WORKFLOW: Message = {
  commandType: E.CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
  completeWorkflowExecutionCommandAttributes: {},
};

/** A JSON payload, as the SDKs' default converter writes it. */
export function jsonPayloads(value: unknown): Message {
  return {
    payloads: [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) }],
  };
}

/** An update request as the worker received it with a workflow task. */
export interface UpdateRequestMessage {
  id: string;
  updateId: string;
  sequencingEventId: number;
  request: Message;
}

/** The update requests a workflow task carries. */
export function updateRequests(task: Message): UpdateRequestMessage[] {
  return ((task.messages ?? []) as Message[]).map((message) => ({
    id: message.id as string,
    updateId: message.protocolInstanceId as string,
    sequencingEventId: Number(message.eventId ?? 0),
    request: unpackAny(message.body as { type_url: string; value: Uint8Array }).message,
  }));
}

/** What the worker answers about one update: accept it (and complete it with `result`), or reject it. */
export type UpdateAnswer = { accept: true; result?: unknown } | { reject: string };

/** The protocol messages and their ProtocolMessage commands for `answer`. */
export function answerUpdate(
  request: UpdateRequestMessage,
  answer: UpdateAnswer
): { messages: Message[]; commands: Message[] } {
  const message = (suffix: string, type: string, body: object): Message => ({
    id: `${request.updateId}/${suffix}`,
    protocolInstanceId: request.updateId,
    body: packAny(`${UPDATE}.${type}`, body),
  });
  if ('reject' in answer) {
    const rejection = message('reject', 'Rejection', {
      rejectedRequestMessageId: request.id,
      rejectedRequestSequencingEventId: request.sequencingEventId,
      rejectedRequest: request.request,
      failure: { message: answer.reject, applicationFailureInfo: { type: 'Rejected' } },
    });
    return { messages: [rejection], commands: [] };
  }
  const messages = [
    message('accept', 'Acceptance', {
      acceptedRequestMessageId: request.id,
      acceptedRequestSequencingEventId: request.sequencingEventId,
      acceptedRequest: request.request,
    }),
  ];
  if ('result' in answer) {
    messages.push(
      message('complete', 'Response', {
        meta: { updateId: request.updateId },
        outcome: { success: jsonPayloads(answer.result) },
      })
    );
  }
  const commands = messages.map((m) => ({
    commandType: E.CommandType.COMMAND_TYPE_PROTOCOL_MESSAGE,
    protocolMessageCommandAttributes: { messageId: m.id },
  }));
  return { messages, commands };
}

export class FakeWorker {
  readonly raw: RawClient;
  readonly taskQueue = `fake-worker-${randomUUID()}`;
  readonly identity = 'fake-worker@conformance';

  constructor(readonly server: TestTemporal) {
    this.raw = new RawClient(server.address);
  }

  /** Starts a workflow on this worker's task queue; returns its ID. */
  async start(label: string): Promise<string> {
    const workflowId = `${label}-${randomUUID()}`;
    await this.raw.call('StartWorkflowExecution', {
      namespace: this.server.namespace,
      workflowId,
      workflowType: { name: 'fake' },
      taskQueue: { name: this.taskQueue },
      requestId: randomUUID(),
    });
    return workflowId;
  }

  poll(): Promise<Message> {
    return this.raw.call('PollWorkflowTaskQueue', {
      namespace: this.server.namespace,
      taskQueue: { name: this.taskQueue },
      identity: this.identity,
    });
  }

  complete(task: Message, commands: Message[], extra: Message = {}): Promise<Message> {
    return this.raw.call('RespondWorkflowTaskCompleted', {
      namespace: this.server.namespace,
      taskToken: task.taskToken,
      identity: this.identity,
      commands,
      ...extra,
    });
  }

  fail(task: Message): Promise<Message> {
    return this.raw.call('RespondWorkflowTaskFailed', {
      namespace: this.server.namespace,
      taskToken: task.taskToken,
      identity: this.identity,
      cause: E.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE,
      failure: { message: 'fake worker failed the task' },
    });
  }

  signalWithStart(workflowId: string, signalName: string): Promise<Message> {
    return this.raw.call('SignalWithStartWorkflowExecution', {
      namespace: this.server.namespace,
      workflowId,
      workflowType: { name: 'fake' },
      taskQueue: { name: this.taskQueue },
      signalName,
      requestId: randomUUID(),
    });
  }

  signal(workflowId: string, signalName: string): Promise<Message> {
    return this.raw.call('SignalWorkflowExecution', {
      namespace: this.server.namespace,
      workflowExecution: { workflowId },
      signalName,
      requestId: randomUUID(),
    });
  }

  async eventTypes(workflowId: string): Promise<string[]> {
    const history = await this.raw.call('GetWorkflowExecutionHistory', {
      namespace: this.server.namespace,
      execution: { workflowId },
    });
    const events = (history.history as { events: { eventType: number }[] }).events;
    return events.map((event) => String(E.EventType[event.eventType]).replace(/^EVENT_TYPE_/, ''));
  }

  close(): void {
    this.raw.close();
  }
}
