/**
 * Workflow-level retries: a run started with a RetryPolicy that fails (or hits its run timeout)
 * is closed with retryState IN_PROGRESS and `newExecutionRunId`, and a new run of the same
 * workflow starts after the backoff, with attempt + 1 and the failure as `continuedFailure`.
 */
import { randomUUID } from 'node:crypto';
import { enums, type Failure, type Message, type Payloads, type RetryPolicy } from '../proto/types';
import type { Engine } from './engine';
import { createRun } from './executions';
import { decideRetry, normalizeRetryPolicy } from './retry';
import type { RunState } from './state';
import { scheduleWorkflowTask } from './workflow-task';

export interface WorkflowRetryPlan {
  retryState: number;
  /** Set when the workflow is retried. */
  newRunId?: string;
  delayMs?: number;
}

function startedAttributes(run: RunState): Message {
  return (run.history[0]?.workflowExecutionStartedEventAttributes ?? {}) as Message;
}

export function planWorkflowRetry(engine: Engine, run: RunState, failure: Failure): WorkflowRetryPlan {
  const started = startedAttributes(run);
  const policy = started.retryPolicy as RetryPolicy | undefined;
  if (!policy) return { retryState: enums.RetryState.RETRY_STATE_RETRY_POLICY_NOT_SET };
  const attempt = Number(started.attempt ?? 1);
  const decision = decideRetry(normalizeRetryPolicy(policy), attempt, failure, engine.now(), run.executionDeadline);
  if (decision.delayMs === undefined) return { retryState: decision.retryState };
  return { retryState: decision.retryState, newRunId: randomUUID(), delayMs: decision.delayMs };
}

/** Starts the next attempt; call after the failed run's close event is written. */
export function startWorkflowRetry(engine: Engine, run: RunState, plan: WorkflowRetryPlan, failure: Failure): void {
  if (!plan.newRunId) return;
  const started = startedAttributes(run);
  const next = createRun(engine, {
    runId: plan.newRunId,
    workflowId: run.workflowId,
    workflowType: run.workflowType,
    taskQueue: run.taskQueue,
    input: started.input as Payloads | undefined,
    header: started.header as Message | undefined,
    memo: run.memo,
    searchAttributes: run.searchAttributes,
    runTimeoutMs: run.runTimeoutMs,
    executionTimeoutMs: run.executionTimeoutMs,
    executionDeadline: run.executionDeadline,
    workflowTaskTimeoutMs: run.workflowTaskTimeoutMs,
    identity: '',
    requestId: randomUUID(),
    firstExecutionRunId: run.firstExecutionRunId,
    continuedExecutionRunId: run.runId,
    initiator: enums.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_RETRY,
    retryPolicy: started.retryPolicy as Message,
    attempt: Number(started.attempt ?? 1) + 1,
    continuedFailure: failure,
    firstWorkflowTaskBackoffMs: plan.delayMs,
  });
  scheduleWorkflowTask(engine, next, plan.delayMs ?? 0);
}
