/**
 * Workflow task commands. `validateCommands` checks the whole batch before anything is written;
 * `applyCommands` then writes one event per command, in command order, right after
 * WorkflowTaskCompleted (core matches commands to events by position and type).
 */
import { durationMs } from '../proto/time';
import { enums, type Message } from '../proto/types';
import { requestCancelActivity, scheduleActivity, validateScheduleActivity } from './activity-commands';
import { commandAttributes, type Command, type CommandProblem } from './command';
import type { Engine } from './engine';
import { appendEvent } from './history';
import { cancelTimer, startTimer } from './timers';
import {
  closeFromCommand,
  continueAsNew,
  upsertMemo,
  upsertSearchAttributes,
  validateContinueAsNew,
} from './run-commands';
import { eventAt, type RunState } from './state';
import { applyProtocolMessage, type ParsedMessages } from './update-protocol';

const C = enums.CommandType;
const CAUSE = enums.WorkflowTaskFailedCause;

const UNSUPPORTED: Partial<Record<number, { feature: string; cause: number }>> = {
  [C.COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION]: {
    feature: 'child workflows (StartChildWorkflowExecution)',
    cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_START_CHILD_EXECUTION_ATTRIBUTES,
  },
  [C.COMMAND_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION]: {
    feature: 'signalling other workflows (SignalExternalWorkflowExecution)',
    cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_SIGNAL_WORKFLOW_EXECUTION_ATTRIBUTES,
  },
  [C.COMMAND_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION]: {
    feature: 'cancelling other workflows (RequestCancelExternalWorkflowExecution)',
    cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_ATTRIBUTES,
  },
  [C.COMMAND_TYPE_SCHEDULE_NEXUS_OPERATION]: {
    feature: 'Nexus operations (ScheduleNexusOperation)',
    cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_NEXUS_OPERATION_ATTRIBUTES,
  },
  [C.COMMAND_TYPE_REQUEST_CANCEL_NEXUS_OPERATION]: {
    feature: 'Nexus operations (RequestCancelNexusOperation)',
    cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_REQUEST_CANCEL_NEXUS_OPERATION_ATTRIBUTES,
  },
};

const CLOSE_COMMANDS = new Set<number>([
  C.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
  C.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION,
  C.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION,
  C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
]);

/** Per-batch bookkeeping so duplicates inside one completion are caught too. */
interface BatchState {
  activityIds: Set<string>;
  timerIds: Set<string>;
}

export function validateCommands(
  engine: Engine,
  run: RunState,
  commands: Command[],
  messages: ParsedMessages
): CommandProblem | undefined {
  const batch: BatchState = {
    activityIds: new Set(Object.values(run.activities).map((a) => a.activityId)),
    timerIds: new Set(Object.keys(run.timers)),
  };
  for (let index = 0; index < commands.length; index++) {
    const command = commands[index] as Command;
    const type = command.commandType ?? 0;
    if (CLOSE_COMMANDS.has(type) && index !== commands.length - 1) {
      return {
        cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_UNSPECIFIED,
        message: `invalid command sequence: command ${C[type]} must be the last command.`,
      };
    }
    const problem = validateCommand(engine, run, command, messages, batch);
    if (problem) return problem;
  }
  return undefined;
}

function validateCommand(
  engine: Engine,
  run: RunState,
  command: Command,
  messages: ParsedMessages,
  batch: BatchState
): CommandProblem | undefined {
  const type = command.commandType ?? 0;
  const attributes = commandAttributes(command);
  const unsupported = unsupportedProblem(type);
  if (unsupported) return unsupported;
  switch (type) {
    case C.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK:
      return validateScheduleActivity(run, attributes, batch.activityIds);
    case C.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK:
      return validateCancelActivity(run, attributes);
    case C.COMMAND_TYPE_START_TIMER:
      return validateStartTimer(attributes, batch.timerIds);
    case C.COMMAND_TYPE_CANCEL_TIMER:
      return validateCancelTimer(run, attributes, batch.timerIds);
    case C.COMMAND_TYPE_RECORD_MARKER:
      return validateRecordMarker(attributes);
    case C.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
      return validateSearchAttributes(engine, attributes);
    case C.COMMAND_TYPE_PROTOCOL_MESSAGE:
      return validateProtocolMessage(attributes, messages);
    case C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
      return validateContinueAsNew(engine, attributes);
    case C.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION:
    case C.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION:
    case C.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION:
    case C.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES:
      return undefined;
    default:
      return { cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND, message: `Unknown command type ${type}.` };
  }
}

function unsupportedProblem(type: number): CommandProblem | undefined {
  const unsupported = UNSUPPORTED[type];
  if (!unsupported) return undefined;
  return {
    cause: unsupported.cause,
    message:
      `The ConvEngine dev server does not support ${unsupported.feature}. ` +
      'Run this workflow against a real Temporal server (set TEMPORAL_ADDRESS).',
  };
}

function validateRecordMarker(attributes: Message): CommandProblem | undefined {
  if (attributes.markerName) return undefined;
  return {
    cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_RECORD_MARKER_ATTRIBUTES,
    message: 'MarkerName is not set on RecordMarkerCommand.',
  };
}

function validateProtocolMessage(attributes: Message, messages: ParsedMessages): CommandProblem | undefined {
  if (messages.has(String(attributes.messageId ?? ''))) return undefined;
  return {
    cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE,
    message: `ProtocolMessageCommand refers to unknown message ${String(attributes.messageId)}.`,
  };
}

function validateCancelActivity(run: RunState, attributes: Message): CommandProblem | undefined {
  const scheduledEventId = Number(attributes.scheduledEventId ?? 0);
  const event = eventAt(run, scheduledEventId - 1);
  if (event?.eventType === enums.EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) return undefined;
  return {
    cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES,
    message: `Activity scheduled by event ${scheduledEventId} does not exist.`,
  };
}

function validateStartTimer(attributes: Message, timerIds: Set<string>): CommandProblem | undefined {
  const timerId = String(attributes.timerId ?? '');
  const cause = CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_START_TIMER_ATTRIBUTES;
  if (!timerId) return { cause, message: 'TimerId is not set on StartTimerCommand.' };
  if (durationMs(attributes.startToFireTimeout as Message) < 0) {
    return { cause, message: 'A valid StartToFireTimeout is not set on StartTimerCommand.' };
  }
  if (timerIds.has(timerId)) {
    return {
      cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_START_TIMER_DUPLICATE_ID,
      message: `Timer ${timerId} already exists.`,
    };
  }
  timerIds.add(timerId);
  return undefined;
}

function validateCancelTimer(run: RunState, attributes: Message, timerIds: Set<string>): CommandProblem | undefined {
  const timerId = String(attributes.timerId ?? '');
  const firedButBuffered = run.buffered.some((group) =>
    group.some((e) => e.eventType === enums.EventType.EVENT_TYPE_TIMER_FIRED && e.attributes.timerId === timerId)
  );
  if (timerIds.has(timerId) || firedButBuffered) {
    timerIds.delete(timerId);
    return undefined;
  }
  return {
    cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_CANCEL_TIMER_ATTRIBUTES,
    message: `Timer ${timerId} does not exist or already fired.`,
  };
}

function validateSearchAttributes(engine: Engine, attributes: Message): CommandProblem | undefined {
  const fields = (attributes.searchAttributes as { indexedFields?: Record<string, never> } | undefined)?.indexedFields;
  const error = engine.searchAttributes.validate(fields);
  return error ? { cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES, message: error } : undefined;
}

interface ApplyContext {
  engine: Engine;
  run: RunState;
  messages: ParsedMessages;
  usedMessages: Set<string>;
  completedEventId: number;
  identity: string;
  /** Filled with the activities scheduled for eager execution; null when the worker cannot be handed any. */
  eagerActivities: number[] | null;
}

/** Writes the event(s) of one command. Returns true if the workflow needs another task to see what happened. */
function applyCommand(context: ApplyContext, command: Command): boolean {
  const metadata = (command as { userMetadata?: unknown }).userMetadata;
  context.engine.commandMetadata = metadata ?? null;
  try {
    return applyCommandEvents(context, command);
  } finally {
    context.engine.commandMetadata = null;
  }
}

function applyCommandEvents(context: ApplyContext, command: Command): boolean {
  const { engine, run, completedEventId, identity } = context;
  const attributes = commandAttributes(command);
  switch (command.commandType) {
    case C.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK: {
      const eager = context.eagerActivities !== null && attributes.requestEagerExecution === true;
      const scheduledEventId = scheduleActivity(engine, run, attributes, completedEventId, eager);
      if (eager) context.eagerActivities?.push(scheduledEventId);
      return false;
    }
    case C.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK:
      return requestCancelActivity(engine, run, attributes, completedEventId, identity);
    case C.COMMAND_TYPE_START_TIMER:
      startTimer(engine, run, attributes, completedEventId);
      return false;
    case C.COMMAND_TYPE_CANCEL_TIMER:
      cancelTimer(engine, run, attributes, completedEventId, identity);
      return false;
    case C.COMMAND_TYPE_RECORD_MARKER:
      appendEvent(engine, run, enums.EventType.EVENT_TYPE_MARKER_RECORDED, 'markerRecordedEventAttributes', {
        ...attributes,
        workflowTaskCompletedEventId: completedEventId,
      });
      return false;
    case C.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
      upsertSearchAttributes(engine, run, attributes, completedEventId);
      return false;
    case C.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES:
      upsertMemo(engine, run, attributes, completedEventId);
      return false;
    case C.COMMAND_TYPE_PROTOCOL_MESSAGE: {
      const message = context.messages.get(String(attributes.messageId ?? ''));
      if (message) {
        context.usedMessages.add(message.id);
        applyProtocolMessage(engine, run, message);
      }
      return false;
    }
    case C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
      continueAsNew(engine, run, attributes, completedEventId);
      return false;
    default:
      closeFromCommand(engine, run, command.commandType ?? 0, attributes, completedEventId);
      return false;
  }
}

/** Applies a validated batch. Returns true if the workflow needs another task to see what happened. */
export function applyCommands(
  engine: Engine,
  run: RunState,
  commands: Command[],
  messages: ParsedMessages,
  completedEventId: number,
  identity: string,
  eagerActivities: number[] | null = null
): boolean {
  const context: ApplyContext = {
    engine,
    run,
    messages,
    usedMessages: new Set(),
    completedEventId,
    identity,
    eagerActivities,
  };
  let needsTask = false;
  for (const command of commands) needsTask = applyCommand(context, command) || needsTask;
  // Messages without a command (rejections) are applied after all commands, as the real server does.
  for (const message of messages.values()) {
    if (!context.usedMessages.has(message.id)) applyProtocolMessage(engine, run, message);
  }
  return needsTask;
}
