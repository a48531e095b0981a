import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import type { McpToolDescriptor } from '../core/turn/contracts';
import {
  BOOKKEEPING_RETRY,
  BOOKKEEPING_TIMEOUT_MS,
  MODEL_RETRY,
  MODEL_TIMEOUT_MS,
  NON_RETRYABLE_ERROR_TYPES,
  STEP_TABLE,
  toolRetry,
  type RetrySpec,
  type StepName,
  type StepSpec,
} from '../core/turn/steps';

/**
 * Every activity heartbeats while it runs (activities/runtime/heartbeat.ts), so a worker that dies
 * mid-step is noticed within this, and the step retried elsewhere, instead of after start-to-close.
 */
const HEARTBEAT_TIMEOUT = '10 seconds';

function retryPolicy(spec: RetrySpec): NonNullable<ActivityOptions['retry']> {
  return {
    initialInterval: spec.initialIntervalMs,
    backoffCoefficient: spec.backoffCoefficient,
    maximumInterval: spec.maximumIntervalMs,
    maximumAttempts: spec.maximumAttempts,
    nonRetryableErrorTypes: [...NON_RETRYABLE_ERROR_TYPES],
  };
}

/**
 * Options of a regular activity, from the step table (core/turn/steps.ts). A step that outlasts an unreachable
 * database (databaseUnreachableRetryMs) has no attempt limit but a schedule-to-close: its activity fails any other
 * failure for good once its maximumAttempts are spent (activities/runtime/database-outage.ts, untilDatabaseBack).
 */
export function activityOptionsFor(spec: Pick<StepSpec, 'retry' | 'startToCloseMs'>): ActivityOptions {
  const options: ActivityOptions = { startToCloseTimeout: spec.startToCloseMs, heartbeatTimeout: HEARTBEAT_TIMEOUT };
  const retry = retryPolicy(spec.retry);
  const outlasting = spec.retry.databaseUnreachableRetryMs;
  if (outlasting === undefined) return { ...options, retry };
  return {
    ...options,
    scheduleToCloseTimeout: outlasting,
    retry: { ...retry, maximumAttempts: Number.POSITIVE_INFINITY },
  };
}

/** Options of a local activity (a `local` step), from the step table. */
export function localActivityOptionsFor(spec: StepSpec): LocalActivityOptions {
  return { startToCloseTimeout: spec.startToCloseMs, retry: retryPolicy(spec.retry) };
}

/** Database-only steps: quick, and safe to retry (audits and the commit are idempotent). */
export const stepActivity: ActivityOptions = activityOptionsFor({
  retry: BOOKKEEPING_RETRY,
  startToCloseMs: BOOKKEEPING_TIMEOUT_MS,
});

/**
 * Steps that call the LLM: retry 429/5xx/timeouts with a longer backoff. One attempt may make the
 * SDK's own tries, so start-to-close leaves room for them; a dead worker is still noticed within
 * the heartbeat timeout.
 */
export const llmActivity: ActivityOptions = activityOptionsFor({
  retry: MODEL_RETRY,
  startToCloseMs: MODEL_TIMEOUT_MS,
});

export function optionsForStep(name: StepName): ActivityOptions {
  return activityOptionsFor(STEP_TABLE[name]);
}

/** Tool calls by side-effect class (D16); see toolRetry in core/turn/steps.ts. */
export function optionsForTool(tool: McpToolDescriptor): ActivityOptions {
  const retry = toolRetry(tool);
  return activityOptionsFor({ retry, startToCloseMs: retry.startToCloseMs });
}

/** conversationTurn (v1) only: the RecordTurnDecision activity. */
export const decisionActivity: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', maximumAttempts: 10, maximumInterval: '5 seconds' },
};
