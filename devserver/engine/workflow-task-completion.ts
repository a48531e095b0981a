/**
 * Ending a started workflow task: completion (validate every command first, then write
 * WorkflowTaskCompleted, one event per command, then the buffered events), worker-reported
 * failure, server-side rejection and start-to-close timeout.
 */
import { DevServerError, invalidArgument, taskNotFound } from '../errors';
import type { EncodedResponse } from '../proto/codec';
import { durationMs } from '../proto/time';
import {
  enums,
  type Duration,
  type Failure,
  type Message,
  type ProtocolMessage,
  type TaskQueueRef,
} from '../proto/types';
import type { Command } from './command';
import { startEagerActivities, startReturnedWorkflowTask } from './eager-dispatch';
import { withWorkflowTask } from './workflow-task-response';
import { applyCommands, validateCommands } from './commands';
import type { Engine } from './engine';
import { appendEvent, appendMaterialized, flushBuffered } from './history';
import { releaseWaitingQueries, resolveQueryResults, type WorkflowQueryResult } from './queries';
import { eventAt, eventCount, isOpen, type RunState, type WorkflowTaskState } from './state';
import { parseTaskToken } from './tokens';
import {
  abortSentUpdates,
  hasUndeliveredUpdates,
  parseMessages,
  rejectUnprocessedUpdates,
  type ParsedMessages,
} from './update-protocol';
import { failStartedWorkflowTask, scheduleWorkflowTask, workflowTaskKey } from './workflow-task';

const E = enums.EventType;
const CAUSE = enums.WorkflowTaskFailedCause;
const DEFAULT_STICKY_SCHEDULE_TO_START_MS = 10_000;
/** Server-rejected tasks would otherwise retry in a hot loop; back off from the second attempt. */
const REJECTION_BACKOFF_BASE_MS = 1000;
const REJECTION_BACKOFF_MAX_MS = 10_000;

export interface RespondWorkflowTaskCompletedRequest {
  taskToken?: Uint8Array;
  commands?: Command[];
  identity?: string;
  stickyAttributes?: { workerTaskQueue?: TaskQueueRef; scheduleToStartTimeout?: Duration };
  forceCreateNewWorkflowTask?: boolean;
  returnNewWorkflowTask?: boolean;
  binaryChecksum?: string;
  queryResults?: Record<string, WorkflowQueryResult>;
  messages?: ProtocolMessage[];
  sdkMetadata?: Message;
  meteringMetadata?: Message;
  workerVersionStamp?: Message;
}

export interface RespondWorkflowTaskFailedRequest {
  taskToken?: Uint8Array;
  cause?: number;
  failure?: Failure;
  identity?: string;
  binaryChecksum?: string;
}

export function requireStartedWorkflowTask(
  engine: Engine,
  tokenBytes: Uint8Array | undefined
): { run: RunState; wft: WorkflowTaskState } {
  const token = parseTaskToken(tokenBytes);
  if (token.kind !== 'workflow') throw invalidArgument('Not a workflow task token.');
  const run = engine.runs.get(token.runId);
  const wft = run?.wft;
  if (!run || !wft || !isOpen(run) || wft.seq !== token.seq || wft.startedEventId === 0) {
    throw taskNotFound('Workflow task');
  }
  return { run, wft };
}

function isCloseCommand(command: Command): boolean {
  const C = enums.CommandType;
  return (
    command.commandType === C.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION ||
    command.commandType === C.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION ||
    command.commandType === C.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION ||
    command.commandType === C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION
  );
}

export function completeWorkflowTask(
  engine: Engine,
  request: RespondWorkflowTaskCompletedRequest
): Message | EncodedResponse {
  const { run, wft } = requireStartedWorkflowTask(engine, request.taskToken);
  run.closeAttempted = false;
  const commands = request.commands ?? [];
  const identity = request.identity ?? '';
  const parsed = validatedMessages(engine, run, wft, request);
  if (commands.some(isCloseCommand) && run.buffered.length > 0) refuseEarlyClose(engine, run, wft, identity);
  if (isDroppable(run, wft, request, parsed)) {
    const response = dropSpeculativeTask(engine, run, parsed);
    resolveQueryResults(engine, request.queryResults);
    finishWorkflowTask(engine, run, request, false);
    return answer(engine, run, request, response);
  }
  const completedEventId = recordCompletion(engine, run, wft, request);
  const eager: number[] | null = engine.eagerActivityExecution ? [] : null;
  const needsTask = applyCommands(engine, run, commands, parsed, completedEventId, identity, eager);
  const activityTasks = startEagerActivities(engine, run, eager ?? [], identity);
  resolveQueryResults(engine, request.queryResults);
  finishWorkflowTask(engine, run, request, needsTask);
  return answer(engine, run, request, activityTasks.length > 0 ? { activityTasks } : {});
}

/**
 * The completion's messages, once they and its commands are valid; otherwise the task fails and the
 * completion is refused whole (no event of the batch is written).
 */
function validatedMessages(
  engine: Engine,
  run: RunState,
  wft: WorkflowTaskState,
  request: RespondWorkflowTaskCompletedRequest
): ParsedMessages {
  const parsed = parseMessages(engine, run, request.messages ?? []);
  const problem =
    typeof parsed === 'string'
      ? { cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE, message: parsed }
      : validateCommands(engine, run, request.commands ?? [], parsed);
  if (problem || typeof parsed === 'string') {
    const message = problem?.message ?? 'invalid completion';
    rejectWorkflowTask(
      engine,
      run,
      wft,
      problem?.cause ?? CAUSE.WORKFLOW_TASK_FAILED_CAUSE_UNSPECIFIED,
      message,
      request.identity ?? ''
    );
    throw invalidArgument(message);
  }
  return parsed;
}

/**
 * New events arrived while the workflow decided to close: it must see them first. Updates that arrived
 * meanwhile do not count (server 1.29 has that check commented out): the close aborts them (update-protocol.ts).
 */
function refuseEarlyClose(engine: Engine, run: RunState, wft: WorkflowTaskState, identity: string): never {
  abortSentUpdates(engine, run);
  failStartedWorkflowTask(engine, run, wft, {
    cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
    identity,
    nextAttempt: 1,
  });
  run.closeAttempted = true;
  throw new DevServerError('INVALID_ARGUMENT', 'UnhandledCommand');
}

/** The completion's answer, with the next workflow task when the worker asked for it and there is one. */
function answer(
  engine: Engine,
  run: RunState,
  request: RespondWorkflowTaskCompletedRequest,
  response: Message
): Message | EncodedResponse {
  const task = request.returnNewWorkflowTask
    ? startReturnedWorkflowTask(engine, run, request.identity ?? '')
    : undefined;
  return task ? withWorkflowTask('completion', response, task) : response;
}

/**
 * A speculative task that only rejected updates, with nothing new in the meantime, leaves no trace; so does one
 * that answered none, as the server rejects those (`skipWorkflowTaskCompletedEvent`).
 */
function isDroppable(
  run: RunState,
  wft: WorkflowTaskState,
  request: RespondWorkflowTaskCompletedRequest,
  parsed: ParsedMessages
): boolean {
  if (!wft.speculative || (request.commands ?? []).length > 0 || request.forceCreateNewWorkflowTask) return false;
  if (run.buffered.length > 0) return false;
  return [...parsed.values()].every((message) => message.typeName.endsWith('.Rejection'));
}

/**
 * The real server drops such a task: history stays as it was, and the answer's
 * `resetHistoryEventId` (the last WorkflowTaskStarted still in history) tells the worker to roll
 * its cached run back to it.
 */
function dropSpeculativeTask(engine: Engine, run: RunState, parsed: ParsedMessages): Message {
  run.wft = undefined;
  engine.scheduler.clear(workflowTaskKey(run.runId));
  run.nextWftAttempt = 1;
  engine.touch(run);
  applyCommands(engine, run, [], parsed, 0, '');
  let resetHistoryEventId = 0;
  for (let i = eventCount(run) - 1; i >= 0 && resetHistoryEventId === 0; i--) {
    const event = eventAt(run, i);
    if (event?.eventType === E.EVENT_TYPE_WORKFLOW_TASK_STARTED) resetHistoryEventId = event.eventId;
  }
  return { resetHistoryEventId };
}

function recordCompletion(
  engine: Engine,
  run: RunState,
  wft: WorkflowTaskState,
  request: RespondWorkflowTaskCompletedRequest
): number {
  for (const event of wft.transientEvents ?? []) appendMaterialized(engine, run, event);
  const completed = appendEvent(
    engine,
    run,
    E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    'workflowTaskCompletedEventAttributes',
    {
      scheduledEventId: wft.scheduledEventId,
      startedEventId: wft.startedEventId,
      identity: request.identity,
      binaryChecksum: request.binaryChecksum,
      // Core reads its internal flags back from here on replay.
      sdkMetadata: request.sdkMetadata,
      meteringMetadata: request.meteringMetadata,
      workerVersion: request.workerVersionStamp,
    }
  );
  run.wft = undefined;
  engine.scheduler.clear(workflowTaskKey(run.runId));
  run.nextWftAttempt = 1;
  run.lastCompletedStartedEventId = wft.startedEventId;
  const stickyQueue = request.stickyAttributes?.workerTaskQueue?.name;
  run.sticky = stickyQueue
    ? {
        queue: stickyQueue,
        scheduleToStartMs:
          durationMs(request.stickyAttributes?.scheduleToStartTimeout) || DEFAULT_STICKY_SCHEDULE_TO_START_MS,
      }
    : undefined;
  engine.touch(run);
  return completed.eventId;
}

function finishWorkflowTask(
  engine: Engine,
  run: RunState,
  request: RespondWorkflowTaskCompletedRequest,
  needsTask: boolean
): void {
  if (!isOpen(run)) return;
  const heartbeat = request.forceCreateNewWorkflowTask === true;
  // A heartbeat may answer its updates with a later completion.
  if (!heartbeat) rejectUnprocessedUpdates(engine, run);
  const flushed = flushBuffered(engine, run);
  if (needsTask || heartbeat || flushed || hasUndeliveredUpdates(run)) scheduleWorkflowTask(engine, run);
  releaseWaitingQueries(engine, run);
}

export function failWorkflowTask(engine: Engine, request: RespondWorkflowTaskFailedRequest): object {
  const { run, wft } = requireStartedWorkflowTask(engine, request.taskToken);
  failStartedWorkflowTask(engine, run, wft, {
    cause: request.cause ?? CAUSE.WORKFLOW_TASK_FAILED_CAUSE_UNSPECIFIED,
    failure: request.failure,
    identity: request.identity,
  });
  return {};
}

/** The server refuses a completion (invalid command): the task fails and is retried with backoff. */
function rejectWorkflowTask(
  engine: Engine,
  run: RunState,
  wft: WorkflowTaskState,
  cause: number,
  message: string,
  identity: string
): void {
  abortSentUpdates(engine, run);
  const backoffMs =
    wft.attempt >= 2 ? Math.min(REJECTION_BACKOFF_BASE_MS * 2 ** (wft.attempt - 2), REJECTION_BACKOFF_MAX_MS) : 0;
  failStartedWorkflowTask(engine, run, wft, {
    cause,
    failure: {
      message,
      source: 'ConvEngineDevServer',
      applicationFailureInfo: { type: 'BadCommand', nonRetryable: true },
    },
    identity,
    backoffMs,
  });
}
