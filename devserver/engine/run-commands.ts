/**
 * Commands that act on the run itself: close (complete / fail / cancel), continue-as-new, search
 * attribute and memo upserts.
 */
import { randomUUID } from 'node:crypto';
import { durationMs } from '../proto/time';
import { enums, type Failure, type Message, type Payload } from '../proto/types';
import type { CommandProblem } from './command';
import type { Engine } from './engine';
import { chainedRunBackoffMs, closeRun, createRun, startWorkflowRetry, type CreateRunParams } from './executions';
import { appendEvent } from './history';
import { validateRetryPolicy } from './retry';
import { planWorkflowRetry } from './workflow-retry';
import { mergeSearchAttributes } from './search-attributes';
import type { RunState } from './state';
import { scheduleWorkflowTask } from './workflow-task';

const E = enums.EventType;
const C = enums.CommandType;
const STATUS = enums.WorkflowExecutionStatus;
const CAUSE = enums.WorkflowTaskFailedCause;

export function closeFromCommand(
  engine: Engine,
  run: RunState,
  commandType: number,
  attributes: Message,
  completedEventId: number
): void {
  if (commandType === C.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION) {
    appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, 'workflowExecutionCompletedEventAttributes', {
      result: attributes.result,
      workflowTaskCompletedEventId: completedEventId,
    });
    closeRun(engine, run, STATUS.WORKFLOW_EXECUTION_STATUS_COMPLETED);
  } else if (commandType === C.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION) {
    const failure = (attributes.failure ?? {}) as Failure;
    const retry = planWorkflowRetry(engine, run, failure);
    appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, 'workflowExecutionFailedEventAttributes', {
      failure,
      retryState: retry.retryState,
      workflowTaskCompletedEventId: completedEventId,
      newExecutionRunId: retry.newRunId,
    });
    run.nextRunId = retry.newRunId;
    closeRun(engine, run, STATUS.WORKFLOW_EXECUTION_STATUS_FAILED);
    startWorkflowRetry(engine, run, retry, failure);
  } else if (commandType === C.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION) {
    appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, 'workflowExecutionCanceledEventAttributes', {
      details: attributes.details,
      workflowTaskCompletedEventId: completedEventId,
    });
    closeRun(engine, run, STATUS.WORKFLOW_EXECUTION_STATUS_CANCELED);
  }
}

export function validateContinueAsNew(engine: Engine, attributes: Message): CommandProblem | undefined {
  const cause = CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_CONTINUE_AS_NEW_ATTRIBUTES;
  if (attributes.cronSchedule) {
    return { cause, message: 'The ConvEngine dev server does not support cron schedules.' };
  }
  const retryProblem = validateRetryPolicy(attributes.retryPolicy as Message | undefined);
  if (retryProblem) return { cause, message: retryProblem };
  const fields = (attributes.searchAttributes as { indexedFields?: Record<string, Payload> } | undefined)
    ?.indexedFields;
  const saProblem = engine.searchAttributes.validate(fields);
  return saProblem ? { cause: CAUSE.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES, message: saProblem } : undefined;
}

/** The successor run: what the command sets, falling back to the current run's settings. */
function successorParams(engine: Engine, run: RunState, attributes: Message, newRunId: string): CreateRunParams {
  const memo = (attributes.memo as { fields?: Record<string, Payload> } | undefined)?.fields;
  const searchAttributes = (attributes.searchAttributes as { indexedFields?: Record<string, Payload> } | undefined)
    ?.indexedFields;
  return {
    runId: newRunId,
    workflowId: run.workflowId,
    workflowType: String((attributes.workflowType as Message | undefined)?.name || run.workflowType),
    taskQueue: String((attributes.taskQueue as Message | undefined)?.name || run.taskQueue),
    input: attributes.input as Message | undefined,
    header: attributes.header as Message | undefined,
    memo: memo ?? run.memo,
    searchAttributes: searchAttributes ?? run.searchAttributes,
    runTimeoutMs: durationMs(attributes.workflowRunTimeout as Message) || run.runTimeoutMs,
    executionTimeoutMs: run.executionTimeoutMs,
    executionDeadline: run.executionDeadline,
    workflowTaskTimeoutMs: durationMs(attributes.workflowTaskTimeout as Message) || run.workflowTaskTimeoutMs,
    identity: '',
    requestId: randomUUID(),
    firstExecutionRunId: run.firstExecutionRunId,
    continuedExecutionRunId: run.runId,
    initiator: attributes.initiator as number | undefined,
    retryPolicy: attributes.retryPolicy as Message | undefined,
    lastCompletionResult: attributes.lastCompletionResult as Message | undefined,
    continuedFailure: attributes.failure as Failure | undefined,
    firstWorkflowTaskBackoffMs: chainedRunBackoffMs(
      engine,
      run,
      durationMs(attributes.backoffStartInterval as Message)
    ),
  };
}

/** Closes the run as CONTINUED_AS_NEW and starts its successor under the same workflow ID. */
export function continueAsNew(engine: Engine, run: RunState, attributes: Message, completedEventId: number): void {
  const params = successorParams(engine, run, attributes, randomUUID());
  appendEvent(
    engine,
    run,
    E.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
    'workflowExecutionContinuedAsNewEventAttributes',
    {
      newExecutionRunId: params.runId,
      workflowType: { name: params.workflowType },
      taskQueue: { name: params.taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      input: attributes.input,
      workflowRunTimeout: attributes.workflowRunTimeout,
      workflowTaskTimeout: attributes.workflowTaskTimeout,
      workflowTaskCompletedEventId: completedEventId,
      backoffStartInterval: attributes.backoffStartInterval,
      initiator: attributes.initiator,
      failure: attributes.failure,
      lastCompletionResult: attributes.lastCompletionResult,
      header: attributes.header,
      memo: attributes.memo,
      searchAttributes: attributes.searchAttributes,
    }
  );
  run.nextRunId = params.runId;
  closeRun(engine, run, STATUS.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW);
  const next = createRun(engine, params);
  scheduleWorkflowTask(engine, next, params.firstWorkflowTaskBackoffMs ?? 0);
}

export function upsertSearchAttributes(
  engine: Engine,
  run: RunState,
  attributes: Message,
  completedEventId: number
): void {
  appendEvent(
    engine,
    run,
    E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
    'upsertWorkflowSearchAttributesEventAttributes',
    {
      workflowTaskCompletedEventId: completedEventId,
      searchAttributes: attributes.searchAttributes,
    }
  );
  const fields = (attributes.searchAttributes as { indexedFields?: Record<string, Payload> } | undefined)
    ?.indexedFields;
  mergeSearchAttributes(run.searchAttributes, fields, engine.searchAttributes);
  engine.touch(run);
}

function isEmptyPayload(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  const isNull = encoding !== undefined && Buffer.from(encoding).toString('utf8') === 'binary/null';
  return isNull || (!payload.data && !payload.metadata);
}

export function upsertMemo(engine: Engine, run: RunState, attributes: Message, completedEventId: number): void {
  const upserted = attributes.upsertedMemo as { fields?: Record<string, Payload> } | undefined;
  appendEvent(engine, run, E.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED, 'workflowPropertiesModifiedEventAttributes', {
    workflowTaskCompletedEventId: completedEventId,
    upsertedMemo: upserted,
  });
  for (const [key, payload] of Object.entries(upserted?.fields ?? {})) {
    if (isEmptyPayload(payload)) delete run.memo[key];
    else run.memo[key] = payload;
  }
  engine.touch(run);
}
