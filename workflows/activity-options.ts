import type { ActivityOptions } from '@temporalio/workflow';
import type { McpToolDescriptor, PipelineStepName } from '../core/turn/contracts';

/** Failure types a retry cannot fix: bad config, bad input, guardrail verdicts, stale turns. */
export const NON_RETRYABLE_TYPES = [
  'CONFIG_INVALID',
  'CONFIG_VERSION_UNAVAILABLE',
  'VALIDATION_FAILED',
  'UNRESOLVED_PROMPT_VARIABLE',
  'RESPONSE_MAPPING_NOT_FOUND',
  'PROMPT_TEMPLATE_MISSING',
  'GUARDRAIL_BLOCKED',
  'SQL_GUARDRAIL_REJECTED',
  'TOOL_NOT_ALLOWED',
  'TOOL_ARGS_INVALID',
  'STALE_TURN',
];

/**
 * Every activity heartbeats while it runs (activities/runtime/heartbeat.ts), so a worker that dies
 * mid-step is noticed within this, and the step retried elsewhere, instead of after start-to-close.
 */
const HEARTBEAT_TIMEOUT = '10 seconds';

/** Database-only steps: quick, and safe to retry (audits and the commit are idempotent). */
export const stepActivity: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
  },
};

/**
 * Steps that call the LLM: retry 429/5xx/timeouts with a longer backoff. One attempt may make the
 * SDK's own tries (LLM_TIMEOUT_MS 60 s × 3 by default), so start-to-close leaves room for them;
 * a dead worker is still noticed within the heartbeat timeout.
 */
export const llmActivity: ActivityOptions = {
  startToCloseTimeout: '4 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '20 seconds',
    maximumAttempts: 6,
    nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
  },
};

const LLM_STEPS: ReadonlySet<string> = new Set([
  'DialogueAct',
  'IntentResolution',
  'SchemaExtraction',
  'Disambiguation',
  'ResponseResolution',
]);

export function optionsForStep(name: PipelineStepName): ActivityOptions {
  return LLM_STEPS.has(name) ? llmActivity : stepActivity;
}

/**
 * Tool calls by side-effect class (D16), with the tool row's own settings taking precedence:
 * read-only tools and idempotent writes (which carry a stable idempotency key) retry;
 * non-idempotent writes get exactly one attempt and an operator decides what happens next.
 */
export function optionsForTool(tool: McpToolDescriptor): ActivityOptions {
  const r = tool.retry;
  const oneShot = tool.sideEffect === 'NON_IDEMPOTENT_WRITE';
  const defaultAttempts = tool.sideEffect === 'IDEMPOTENT_WRITE' ? 3 : 5;
  const initialInterval = r.initialIntervalMs ?? 500;
  return {
    startToCloseTimeout: r.startToCloseTimeoutMs ?? 60_000,
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: {
      initialInterval,
      backoffCoefficient: r.backoffCoefficient ?? 2,
      // Temporal refuses a maximum below the initial interval; a row that only raises the initial
      // interval (an SRE's window to act, docs/runbook.md) keeps it as the maximum.
      maximumInterval: r.maxIntervalMs ?? Math.max(10_000, initialInterval),
      maximumAttempts: oneShot ? 1 : (r.maxAttempts ?? defaultAttempts),
      nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
    },
  };
}

export const decisionActivity: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', maximumAttempts: 10, maximumInterval: '5 seconds' },
};
