/**
 * Workflow-level retries: a run started with a RetryPolicy that fails (or hits its run timeout)
 * is closed with retryState IN_PROGRESS and `newExecutionRunId`, and a new run of the same
 * workflow starts after the backoff, with attempt + 1 and the failure as `continuedFailure`. This
 * module decides; executions.ts starts the next run.
 */
import { randomUUID } from 'node:crypto';
import { enums, type Failure, type Message, type RetryPolicy } from '../proto/types';
import type { Engine } from './engine';
import { decideRetry, normalizeRetryPolicy } from './retry';
import { eventAt, type RunState } from './state';

export interface WorkflowRetryPlan {
  retryState: number;
  /** Set when the workflow is retried. */
  newRunId?: string;
  delayMs?: number;
}

export function startedAttributes(run: RunState): Message {
  return (eventAt(run, 0)?.workflowExecutionStartedEventAttributes ?? {}) as Message;
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
