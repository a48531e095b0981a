import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LLM_TIMEOUT_DEFAULT_MS, TURN_REPLY_TIMEOUT_DEFAULT_MS } from '../config/env';
import type { JsonObject } from '../core/json';
import { MODEL_TIMEOUT_MS, STEP_SPECS, TOOL_TIMEOUT_DEFAULT_MS } from '../core/turn/steps';

/** Seconds, from 50 ms to two minutes: what a caller waits for a turn, and one LLM call takes. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Seconds, from 5 ms: most steps are a few database writes, some wait minutes on a model or a tool. */
const STEP_BASE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * `base` (seconds) with each limit (milliseconds) a bound of its own: what ran until a timeout cut it off is told
 * apart from what ended just before, and nothing below a limit is lost in +Inf.
 */
export function bucketsWithLimits(base: readonly number[], limitsMs: readonly number[]): number[] {
  return [...new Set([...base, ...limitsMs.map((ms) => ms / 1000)])].sort((a, b) => a - b);
}

/** A step attempt runs until its start-to-close: a bookkeeping step's 30 s, a model step's 240 s, a tool's (60 s). */
export const stepBuckets = (): number[] =>
  bucketsWithLimits(STEP_BASE_BUCKETS, [...STEP_SPECS.map((spec) => spec.startToCloseMs), TOOL_TIMEOUT_DEFAULT_MS]);

/** One LLM call with its SDK retries: LLM_TIMEOUT_MS a try, all of them within the model step's attempt. */
export const llmBuckets = (llmTimeoutMs: number): number[] =>
  bucketsWithLimits(LATENCY_BUCKETS, [llmTimeoutMs, MODEL_TIMEOUT_MS]);

/** A turn request waits TURN_REPLY_TIMEOUT_MS for its answer, then is answered 202 RUNNING. */
export const turnBuckets = (turnReplyTimeoutMs: number): number[] =>
  bucketsWithLimits(LATENCY_BUCKETS, [turnReplyTimeoutMs]);

/** What the worker counts: steps (activities), tools, guardrails, loop limits, LLM calls. */
export interface WorkerMetrics {
  registry: Registry;
  stepDuration: Histogram<'step' | 'outcome'>;
  toolCalls: Counter<'tool' | 'outcome'>;
  guardrailBlocks: Counter<'reason'>;
  loopLimitStops: Counter;
  llmCalls: Counter<'kind' | 'outcome'>;
  llmDuration: Histogram<'kind'>;
  llmErrors: Counter<'kind'>;
  llmTokens: Counter<'kind' | 'direction'>;
  auditRateDropped: Counter;
  /** 1 while the worker waits for its namespace to exist (worker/namespace-wait.ts), else 0. */
  namespaceWaiting: Gauge;
}

/** What the API counts: turns as callers see them, and approvals waiting for a decision. */
export interface ApiMetrics {
  registry: Registry;
  turnDuration: Histogram<'outcome'>;
  /** Per-process limits (api/concurrency-limit.ts): slots in use, and requests refused with 429. */
  limitInUse: Gauge<'limit'>;
  limitRefused: Counter<'limit'>;
}

function registryWithDefaults(component: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ component });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The worker's metrics; `llmTimeoutMs` is its LLM_TIMEOUT_MS, a bound of the LLM latency buckets. */
export function createWorkerMetrics({ llmTimeoutMs = LLM_TIMEOUT_DEFAULT_MS } = {}): WorkerMetrics {
  const registers = [registryWithDefaults('worker')];
  const [registry] = registers as [Registry];
  return {
    registry,
    stepDuration: new Histogram({
      name: 'convengine_step_duration_seconds',
      help: 'Duration of one step activity attempt, by activity type and outcome (ok, error).',
      labelNames: ['step', 'outcome'],
      buckets: stepBuckets(),
      registers,
    }),
    toolCalls: new Counter({
      name: 'convengine_tool_calls_total',
      help: 'Tool call attempts by tool code and outcome (ok, error, blocked).',
      labelNames: ['tool', 'outcome'],
      registers,
    }),
    guardrailBlocks: new Counter({
      name: 'convengine_guardrail_blocks_total',
      help: 'Tool calls a guardrail stopped (MCP tool policy or SQL guardrail), by reason code.',
      labelNames: ['reason'],
      registers,
    }),
    loopLimitStops: new Counter({
      name: 'convengine_loop_limit_stops_total',
      help: 'Turns whose MCP planner loop stopped at the loop limit.',
      registers,
    }),
    llmCalls: new Counter({
      name: 'convengine_llm_calls_total',
      help: 'LLM calls by call kind and outcome (ok, error).',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    llmDuration: new Histogram({
      name: 'convengine_llm_call_duration_seconds',
      help: 'LLM call latency (including the SDK retries), by call kind.',
      labelNames: ['kind'],
      buckets: llmBuckets(llmTimeoutMs),
      registers,
    }),
    llmErrors: new Counter({
      name: 'convengine_llm_errors_total',
      help: 'LLM calls that failed after the SDK retries, by call kind.',
      labelNames: ['kind'],
      registers,
    }),
    llmTokens: new Counter({
      name: 'convengine_llm_tokens_total',
      help: 'Tokens the LLM reported, by call kind and direction (input, output).',
      labelNames: ['kind', 'direction'],
      registers,
    }),
    auditRateDropped: new Counter({
      name: 'convengine_audit_rows_rate_limited_total',
      help: 'Audit rows not written because the audit rate limit (AuditService.RATE_LIMIT_*) was reached.',
      registers,
    }),
    namespaceWaiting: new Gauge({
      name: 'convengine_worker_namespace_waiting',
      help: '1 while the worker waits for its Temporal namespace to exist (setup-temporal not run yet), else 0.',
      registers,
    }),
  };
}

/** Reason codes are label values: anything else is folded so a hostile value cannot explode cardinality. */
const REASON_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

export const reasonLabel = (reason: unknown): string =>
  typeof reason === 'string' && REASON_CODE.test(reason) ? reason : 'OTHER';

/**
 * A driver decision (a TURN_DECISION payload) in the loop-limit and guardrail counters. The audit writer tells
 * each decision once, wherever it is recorded (activities/runtime/audit-writer.ts): the counters are exact
 * under retries and on every workflow type.
 */
export function countDecision(
  metrics: Pick<WorkerMetrics, 'loopLimitStops' | 'guardrailBlocks'>,
  decision: JsonObject
) {
  if (decision['kind'] === 'LOOP_LIMIT') metrics.loopLimitStops.inc();
  if (decision['kind'] === 'GUARDRAIL_BLOCKED')
    metrics.guardrailBlocks.inc({ reason: reasonLabel(decision['reason']) });
}

/**
 * The API's metrics; `turnReplyTimeoutMs` is its TURN_REPLY_TIMEOUT_MS, a bound of the turn latency buckets.
 * `pendingApprovals` is read at scrape time (a visibility count; api/server.ts bounds it by the check deadline and
 * reuses it for a few seconds); when it fails the gauge reads NaN and the rest of the scrape is served as usual.
 */
export function createApiMetrics(
  pendingApprovals?: () => Promise<number>,
  { turnReplyTimeoutMs = TURN_REPLY_TIMEOUT_DEFAULT_MS } = {}
): ApiMetrics {
  const registers = [registryWithDefaults('api')];
  const [registry] = registers as [Registry];
  if (pendingApprovals) {
    new Gauge({
      name: 'convengine_pending_approvals',
      help: 'Turns waiting for a tool approval decision.',
      registers,
      async collect() {
        this.set(await pendingApprovals().catch(() => Number.NaN));
      },
    });
  }
  return {
    registry,
    turnDuration: new Histogram({
      name: 'convengine_turn_duration_seconds',
      help: 'Turn latency as the API sees it (request to reply), by outcome (COMPLETED, AWAITING_APPROVAL, HELD, RUNNING, FAILED, ERROR).',
      labelNames: ['outcome'],
      buckets: turnBuckets(turnReplyTimeoutMs),
      registers,
    }),
    limitInUse: new Gauge({
      name: 'convengine_api_limit_in_use',
      help: 'Requests holding a slot of a per-process limit (messages, audit_streams, whatif).',
      labelNames: ['limit'],
      registers,
    }),
    limitRefused: new Counter({
      name: 'convengine_api_limit_refused_total',
      help: 'Requests refused because a per-process limit was full (messages, audit_streams, whatif; connections closed as accepted).',
      labelNames: ['limit'],
      registers,
    }),
  };
}
