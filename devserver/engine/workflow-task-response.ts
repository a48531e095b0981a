/**
 * The PollWorkflowTaskQueue response: built around history events that were encoded once, when
 * they were written, so a task never re-encodes the history it ships.
 */
import { appendRepeatedSubmessage, appendSubmessage, EncodedResponse, encodeMessage, protoType } from '../proto/codec';
import { msToTimestamp } from '../proto/time';
import { enums, type HistoryEvent, type Message } from '../proto/types';
import type { Engine } from './engine';
import { encodeEvent } from './history';
import type { QueuedTask } from './matching';
import type { RunState, WorkflowTaskState } from './state';
import { workflowTaskToken } from './tokens';

const POLL_RESPONSE = protoType('temporal.api.workflowservice.v1.PollWorkflowTaskQueueResponse');
const HISTORY_FIELD_NUMBER = 8;
/** Answers that can carry a started workflow task, and the field it goes in. */
const CARRIERS = {
  start: { type: protoType('temporal.api.workflowservice.v1.StartWorkflowExecutionResponse'), field: 2 },
  completion: { type: protoType('temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedResponse'), field: 1 },
};

export interface WorkflowQueuedTask extends QueuedTask {
  runId: string;
}

export interface WorkflowTaskResponseParts {
  token: Buffer;
  history: Buffer[];
  startedEventId: number;
  attempt: number;
  scheduledAt: number;
  queries?: Record<string, unknown>;
  messages?: unknown[];
  query?: unknown;
}

export function workflowTaskResponse(engine: Engine, run: RunState, parts: WorkflowTaskResponseParts): EncodedResponse {
  const now = engine.now();
  const base = {
    taskToken: parts.token,
    workflowExecution: { workflowId: run.workflowId, runId: run.runId },
    workflowType: { name: run.workflowType },
    previousStartedEventId: run.lastCompletedStartedEventId,
    startedEventId: parts.startedEventId,
    attempt: parts.attempt,
    workflowExecutionTaskQueue: { name: run.taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    scheduledTime: msToTimestamp(parts.scheduledAt),
    startedTime: msToTimestamp(now),
    queries: parts.queries,
    messages: parts.messages,
    query: parts.query,
  };
  engine.stats.eventsSentInWorkflowTasks += parts.history.length;
  return new EncodedResponse(
    appendRepeatedSubmessage(encodeMessage(POLL_RESPONSE, base), HISTORY_FIELD_NUMBER, parts.history)
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

/**
 * A StartWorkflowExecution answer (eager start) or RespondWorkflowTaskCompleted answer (a returned
 * new task) carrying a started workflow task, whose history was encoded once.
 */
export function withWorkflowTask(
  carrier: keyof typeof CARRIERS,
  response: Message,
  task: EncodedResponse
): EncodedResponse {
  const { type, field } = CARRIERS[carrier];
  return new EncodedResponse(appendSubmessage(encodeMessage(type, response), field, task.bytes));
}
