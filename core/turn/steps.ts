import type { ToolSideEffect } from '../config/tool-rows';
import { PERMANENT_ERROR_TYPES } from '../errors';
import { COMMIT_STEPS, PIPELINE_STEPS_AFTER_MCP, PIPELINE_STEPS_BEFORE_MCP, type McpToolDescriptor } from './contracts';

/**
 * The one step table (D19). Every activity a turn runs is listed here once, with how it runs and
 * how it is retried; the workflow, the in-process runner, the worker registration check and the
 * generated table in docs/architecture.md (`npm run docs:steps`) all read it.
 */

/**
 * - `local`: cheap bookkeeping (rules, policy, audit rows) run as a Temporal local activity: still in
 *   history under its step name (a marker), still retried, but no task-queue round trip.
 * - `model`: calls the LLM; a regular activity so server-side retries, heartbeats and SRE
 *   retry/reset apply, with the longer LLM backoff.
 * - `remote`: tool calls, HTTP, consumer tasks and business writes; a regular activity.
 */
export type StepKind = 'local' | 'model' | 'remote';

/** What a step may do to the outside world besides writing its own audit rows. */
export type StepSideEffect =
  | 'NONE'
  /** Reads the conversation or business tables. */
  | 'READS'
  /** Calls the LLM (idempotent from the engine's point of view). */
  | 'LLM_CALL'
  /** Runs a tool: its own side-effect class (D16) sets the retry policy. */
  | 'TOOL_CALL'
  /** Runs consumer task code (SET_TASK rules, pending actions). */
  | 'CONSUMER_TASK'
  /** Writes business data (the conversation commit). */
  | 'BUSINESS_WRITE';

export interface RetrySpec {
  maximumAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  /**
   * How long the step's attempts, together, wait for an unavailable database to come back (a failover, a restart,
   * connections refused) before failing: each attempt that meets one waits its share (outageWaitMs) and then fails
   * as any attempt does, so the attempts and their backoff stay as above for every other failure. Unset: no wait
   * (a tool call, whose side effect decides its retries). Only in a Temporal activity; the in-process runner does not wait.
   */
  databaseOutageMs?: number;
  /**
   * A step that must not give up on an unreachable database (TurnFailure: a failed turn's record): as a regular
   * activity its attempts are retried, with the backoff above, for as long as they keep failing on one, up to this
   * (its schedule-to-close, workflows/activity-options.ts); any other failure still fails it after maximumAttempts
   * (activities/runtime/database-outage.ts, untilDatabaseBack). Unset: maximumAttempts for every failure.
   */
  databaseUnreachableRetryMs?: number;
}

/** The database outage a step safe to repeat rides out: a routine failover or restart takes tens of seconds. */
export const DATABASE_OUTAGE_WINDOW_MS = 60_000;

export interface StepSpec {
  name: StepName;
  kind: StepKind;
  sideEffect: StepSideEffect;
  retry: RetrySpec;
  startToCloseMs: number;
  /** Why it runs the way it does (shown in the generated docs table). */
  why: string;
  /**
   * A `model` or `remote` step that often needs neither the LLM nor consumer code: it is tried as
   * a local activity first and runs again as a regular one only when it reaches either
   * (activities/runtime/local-attempt.ts), so those calls keep server-side retries and SRE reset.
   */
  localFirst?: boolean;
  /** Only scheduled by the first workflow type (`conversationTurn`); kept registered so its histories replay. */
  legacy?: boolean;
  /** Runs other steps (core/turn/step-runs.ts): no step frame and no audit row of its own. */
  composite?: boolean;
  /** Writes one row and no step frame (STEP_ENTER/STEP_EXIT): TurnFailure's row must be the turn's last. */
  frameless?: boolean;
}

/** Whether the step's activity publishes STEP_ENTER, STEP_EXIT and STEP_ERROR (activities/step-runtime.ts). */
export function hasStepFrame(spec: StepSpec): boolean {
  return !spec.legacy && !spec.composite && !spec.frameless;
}

/** Database-only steps: quick, and safe to retry (audits and the commit are idempotent). */
export const BOOKKEEPING_RETRY: RetrySpec = {
  maximumAttempts: 5,
  initialIntervalMs: 200,
  backoffCoefficient: 2,
  maximumIntervalMs: 5_000,
  databaseOutageMs: DATABASE_OUTAGE_WINDOW_MS,
};

/**
 * How long TurnFailure keeps retrying a database that stays unreachable: a failed turn's record is written once the
 * database is back from an outage of up to this long. Past it the turn fails without its row (docs/operations.md).
 */
export const TURN_FAILURE_DATABASE_RETRY_MS = 6 * 60 * 60_000;

/** TurnFailure: a bookkeeping step's policy, retried for as long as the database stays unreachable. */
export const TURN_FAILURE_RETRY: RetrySpec = {
  ...BOOKKEEPING_RETRY,
  databaseUnreachableRetryMs: TURN_FAILURE_DATABASE_RETRY_MS,
};

/** Steps that call the LLM: 429/5xx/timeouts get a longer backoff. */
export const MODEL_RETRY: RetrySpec = {
  maximumAttempts: 6,
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 20_000,
  databaseOutageMs: DATABASE_OUTAGE_WINDOW_MS,
};

/** How long one attempt of a step waits for an unavailable database: its share of the step's outage window. */
export function outageWaitMs(retry: RetrySpec): number {
  return retry.databaseOutageMs === undefined ? 0 : retry.databaseOutageMs / Math.max(1, retry.maximumAttempts);
}

export const BOOKKEEPING_TIMEOUT_MS = 30_000;
/** One model step attempt's start-to-close: room for the SDK's own tries of one call (llmSdkRetries). */
export const MODEL_TIMEOUT_MS = 240_000;
/** The SDK's waits between its tries of one call, allowed for within one attempt. */
const LLM_SDK_BACKOFF_ALLOWANCE_MS = 10_000;
/** LLM_TIMEOUT_MS at most: one SDK try must fit in one attempt of the model step. */
export const LLM_TIMEOUT_MAX_MS = MODEL_TIMEOUT_MS - LLM_SDK_BACKOFF_ALLOWANCE_MS;
/** The SDK's own retries of one call, at most (llmSdkRetries allows fewer for a long LLM_TIMEOUT_MS). */
const LLM_SDK_MAX_RETRIES = 2;
/**
 * The longest the SDK waits before one of its retries: a Retry-After asking for more is cut to this, so that its
 * waits stay within the allowance (the SDK would honour up to 2^31 ms).
 */
export const LLM_SDK_RETRY_WAIT_MAX_MS = LLM_SDK_BACKOFF_ALLOWANCE_MS / LLM_SDK_MAX_RETRIES;

/**
 * How many times the SDK retries one model call itself (at most LLM_SDK_MAX_RETRIES) before the failure reaches the activity, whose
 * retry policy takes over: as many as fit, with their timeouts, in one attempt's start-to-close. Left at 2 for a
 * long LLM_TIMEOUT_MS, Temporal would cut the SDK's last try off and every attempt would end in a timeout.
 */
export function llmSdkRetries(llmTimeoutMs: number): number {
  const tries = Math.floor(LLM_TIMEOUT_MAX_MS / Math.max(1, llmTimeoutMs));
  return Math.max(0, Math.min(LLM_SDK_MAX_RETRIES, tries - 1));
}

function local(name: StepName, sideEffect: StepSideEffect, why: string): StepSpec {
  return { name, kind: 'local', sideEffect, retry: BOOKKEEPING_RETRY, startToCloseMs: BOOKKEEPING_TIMEOUT_MS, why };
}

function model(name: StepName, why: string, localFirst = true): StepSpec {
  const spec: StepSpec = {
    name,
    kind: 'model',
    sideEffect: 'LLM_CALL',
    retry: MODEL_RETRY,
    startToCloseMs: MODEL_TIMEOUT_MS,
    why,
  };
  return localFirst ? { ...spec, localFirst } : spec;
}

function remote(name: StepName, sideEffect: StepSideEffect, why: string): StepSpec {
  const spec: StepSpec = {
    name,
    kind: 'remote',
    sideEffect,
    retry: BOOKKEEPING_RETRY,
    startToCloseMs: BOOKKEEPING_TIMEOUT_MS,
    why,
  };
  // Consumer code runs only when a rule or pending action asks for it; tools and writes always leave.
  if (sideEffect === 'CONSUMER_TASK') return { ...spec, localFirst: true };
  // A tool call is scheduled with its tool's policy (toolRetry), which waits for no database: its side effect decides.
  if (sideEffect === 'TOOL_CALL') return { ...spec, retry: { ...BOOKKEEPING_RETRY, databaseOutageMs: undefined } };
  return spec;
}

/** Every activity type of a turn, in run order: the pipeline's own lists (contracts.ts) plus the unrolled ones. */
export const STEP_NAMES = [
  ...PIPELINE_STEPS_BEFORE_MCP,
  'DirectToolCall',
  'McpPrepare',
  'McpPlan',
  'McpToolCall',
  'McpToolHold',
  'McpFinalize',
  ...PIPELINE_STEPS_AFTER_MCP,
  ...COMMIT_STEPS,
  'TurnFailure',
  'RecordTurnDecision',
  'LocalSteps',
  'RegularSteps',
] as const;

export type StepName = (typeof STEP_NAMES)[number];

const RULES = 'rule phases may run consumer SET_TASK code';

export const STEP_TABLE: { readonly [K in StepName]: StepSpec } = {
  LoadOrCreateConversation: local('LoadOrCreateConversation', 'READS', 'one read; pins the config version'),
  ResetConversation: local('ResetConversation', 'NONE', 'pure session update'),
  AuditUserInput: local('AuditUserInput', 'NONE', 'one audit row'),
  PolicyEnforcement: local('PolicyEnforcement', 'NONE', 'pure policy check'),
  DialogueAct: model('DialogueAct', 'may ask the LLM for the dialogue act'),
  InteractionPolicy: local('InteractionPolicy', 'NONE', 'pure policy decision'),
  ActionLifecycle: local('ActionLifecycle', 'NONE', 'pure session update'),
  Correction: local('Correction', 'NONE', 'pure matching'),
  Disambiguation: model('Disambiguation', 'may ask the LLM for a question'),
  Guardrail: local('Guardrail', 'NONE', 'pure pattern check'),
  IntentResolution: model('IntentResolution', 'may ask the LLM (intent agent)'),
  ResetResolvedIntent: local('ResetResolvedIntent', 'NONE', 'pure session update'),
  FallbackIntentState: local('FallbackIntentState', 'NONE', 'pure session update'),
  SchemaExtraction: model('SchemaExtraction', 'asks the LLM to extract fields'),
  AutoAdvance: local('AutoAdvance', 'NONE', 'pure facts update'),
  PendingAction: remote('PendingAction', 'CONSUMER_TASK', 'runs consumer action code'),
  ToolOrchestration: remote('ToolOrchestration', 'CONSUMER_TASK', `${RULES}; hands a direct tool to DirectToolCall`),
  DirectToolCall: remote('DirectToolCall', 'TOOL_CALL', "a request's tool (D21), retried by the tool's policy"),
  McpPrepare: remote('McpPrepare', 'CONSUMER_TASK', `PRE_AGENT_MCP ${RULES}`),
  McpPlan: model('McpPlan', 'one planner iteration: an LLM call', false),
  McpToolCall: remote('McpToolCall', 'TOOL_CALL', "one CALL_TOOL: SQL/HTTP, retried by the tool's policy"),
  McpToolHold: local(
    'McpToolHold',
    'NONE',
    'audits a call that waits for a person: held for an operator and their decision (#22), or an approval (D16)'
  ),
  McpFinalize: remote('McpFinalize', 'CONSUMER_TASK', `POST_AGENT_MCP ${RULES}`),
  Rules: remote('Rules', 'CONSUMER_TASK', RULES),
  ResponseResolution: model('ResponseResolution', 'DERIVED responses ask the LLM'),
  Memory: local('Memory', 'NONE', 'pure session update'),
  PersistConversation: remote('PersistConversation', 'BUSINESS_WRITE', 'commits the turn (business write)'),
  PipelineEnd: local('PipelineEnd', 'NONE', 'one timing row, from the timings the turn carried'),
  // A local activity in turns from before the turn-failure-outlasts-outage patch (workflows/turn-versions.ts).
  TurnFailure: {
    ...remote(
      'TurnFailure',
      'NONE',
      "the turn's failure row when no step wrote it (a timeout, an operator's fail, a database down past a step's " +
        'wait); retried until the database is back'
    ),
    retry: TURN_FAILURE_RETRY,
    frameless: true,
  },
  RecordTurnDecision: {
    ...remote('RecordTurnDecision', 'NONE', 'conversationTurn (v1) only: V2 records decisions in the next step'),
    legacy: true,
  },
  LocalSteps: {
    ...local('LocalSteps', 'READS', 'runs consecutive local steps in one local activity; each writes its own rows'),
    composite: true,
  },
  // Scheduled with its lead step's retry policy and timeout, never its own defaults below.
  RegularSteps: {
    ...remote('RegularSteps', 'READS', "a regular step and the local steps after it; the lead's retry policy"),
    composite: true,
  },
};

export const STEP_SPECS: readonly StepSpec[] = STEP_NAMES.map((name) => STEP_TABLE[name]);

export function stepSpec(name: StepName): StepSpec {
  return STEP_TABLE[name];
}

/** The spec of a step by its activity's name, or null for a name that is not in the table. */
export function stepSpecNamed(name: string): StepSpec | null {
  return Object.hasOwn(STEP_TABLE, name) ? STEP_TABLE[name as StepName] : null;
}

/** Default attempts of a tool call by its side-effect class (D16), when its row does not say. */
export const TOOL_DEFAULT_ATTEMPTS: Readonly<Record<ToolSideEffect, number>> = {
  READ_ONLY: 5,
  IDEMPOTENT_WRITE: 3,
  NON_IDEMPOTENT_WRITE: 1,
};

/** A tool call attempt's start-to-close when its row sets none (ce_mcp_tool.start_to_close_timeout_ms). */
export const TOOL_TIMEOUT_DEFAULT_MS = 60_000;

export interface ToolRetry extends RetrySpec {
  startToCloseMs: number;
}

/**
 * A tool call's retry policy (D16), the tool row's own settings taking precedence: read-only
 * tools and idempotent writes (which carry a stable idempotency key) retry; non-idempotent writes
 * get exactly one attempt and an operator decides what happens next.
 */
export function toolRetry(tool: McpToolDescriptor): ToolRetry {
  const r = tool.retry;
  const oneShot = tool.sideEffect === 'NON_IDEMPOTENT_WRITE';
  const initialIntervalMs = r.initialIntervalMs ?? 500;
  return {
    maximumAttempts: oneShot ? 1 : Math.max(1, r.maxAttempts ?? TOOL_DEFAULT_ATTEMPTS[tool.sideEffect] ?? 5),
    initialIntervalMs,
    backoffCoefficient: r.backoffCoefficient ?? 2,
    // Temporal refuses a maximum below the initial interval; a row that only raises the initial
    // interval (an SRE's window to act, docs/runbook.md) keeps it as the maximum.
    maximumIntervalMs: r.maxIntervalMs ?? Math.max(10_000, initialIntervalMs),
    startToCloseMs: r.startToCloseTimeoutMs ?? TOOL_TIMEOUT_DEFAULT_MS,
  };
}

/** Error types no retry can fix; every retry policy (workflow and in-process) uses this list. */
export const NON_RETRYABLE_ERROR_TYPES: readonly string[] = PERMANENT_ERROR_TYPES;
