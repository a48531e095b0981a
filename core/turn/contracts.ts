import type { AuditRecord } from '../audit';
import type { ToolSideEffect } from '../config/tool-rows';
import type { Json, JsonObject } from '../json';
import type { Payload, RequestContext, Session } from '../session';
import type { SessionPatch } from './patch';

/** What the gateway asks for: one user message on one conversation. */
export interface TurnInput {
  conversationId: string;
  /** Committed turns + 1, read from ce_conversation.turn_count when the turn was started. */
  turnNumber: number;
  /** Deterministic, readable id of this turn (the workflow id): `turn-<conversationId>-<n>`. */
  turnId: string;
  message: string;
  inputParams: JsonObject;
  reset: boolean;
  requestContext: RequestContext;
  idempotencyKey: string | null;
  /** ISO time the gateway received the request (workflow code cannot read a wall clock). */
  receivedAt: string;
}

export function turnIdFor(conversationId: string, turnNumber: number): string {
  return `turn-${conversationId}-${turnNumber}`;
}

/** Why a step ended the turn early. The commit steps still run so nothing is half-written. */
export interface StopResult {
  reason: 'POLICY_BLOCK' | 'SHORT_CIRCUIT';
  payload: Payload;
}

/**
 * Input of every step activity. `callKey` is unique within the turn and stable across retries
 * (for example `05-DialogueAct` or `mcp-plan-2`); audit idempotency keys derive from it.
 * `carryAudits` are audits decided in workflow code (which cannot write) that this activity
 * persists first, under the key in `carryKey`.
 */
export interface StepInput {
  turn: TurnInput;
  /** The session the step reads; its `configVersion` is the version the turn pinned. */
  session: Session;
  /** Only in inputs recorded by conversationTurn (v1), a copy of session.configVersion; never read. */
  configVersion?: string;
  callKey: string;
  carryAudits?: AuditRecord[];
  carryKey?: string;
  /**
   * conversationTurnV2: answer with a StepResult (what changed) instead of the whole session, and
   * write no audit back to the workflow. Absent in inputs recorded by conversationTurn (v1).
   */
  reply?: 'patch';
  /** Driver decisions (V2) this activity records first, as TURN_DECISION rows. */
  decisions?: RecordedDecision[];
  /**
   * The turn's step timings so far, in the order the steps ran: only in the input of the activity
   * that runs PipelineEnd, whose PIPELINE_TIMING row sums them (the reference's session step timings).
   */
  stepTimings?: StepTiming[];
}

/** How long one step took, as its STEP_EXIT row records it (a step that ran twice has two). */
export interface StepTiming {
  step: string;
  durationMs: number;
}

/**
 * A decision taken by the driver itself (not by an activity): loop limit, next-tool guardrail
 * block, MCP skip, approval outcome. It reaches ce_audit as a TURN_DECISION row.
 */
export interface TurnDecisionRecord {
  kind:
    | 'MCP_SKIPPED'
    | 'LOOP_LIMIT'
    | 'GUARDRAIL_BLOCKED'
    | 'DUPLICATE_SUPPRESSED'
    | 'REPEAT_REFUSED'
    | 'TOOL_FAILED'
    | 'APPROVAL'
    | 'TOOL_HOLD_RESOLVED';
  toolCode: string | null;
  reason: string;
  limit?: number;
  iteration?: number;
}

/** A driver decision numbered within the turn (its audit key is `decision-<seq>`). */
export interface RecordedDecision {
  seq: number;
  decision: TurnDecisionRecord;
}

export interface StepOutput {
  session: Session;
  audits: AuditRecord[];
  stop?: StopResult;
  /**
   * Set by ToolOrchestration when the request's tool_request passed the tool policy (D21): the
   * executor runs it as a DirectToolCall activity with the tool's own retry policy.
   */
  directToolCall?: DirectToolCallRequest;
}

/** What a step decided, readable in the event history (Temporal UI) without opening the database. */
export interface StepSummary {
  outcome: 'Continue' | 'Stop';
  intent: string;
  state: string;
  /** Session paths the step changed (`intent`, `context.mcp`, `-inputParams.mcp_action`, …). */
  changed: string[];
  /**
   * The last progress message (ce_verbose) the step published, if any. The workflow sets it as
   * its current details, so the Temporal UI shows what a running turn is doing.
   */
  progress?: string;
}

/**
 * What a step returns to conversationTurnV2: everything the step output says except the session
 * (replaced by the patch of what changed) and its audits (already written, once, by the step).
 */
export type StepResult<O extends StepOutput = StepOutput> = Omit<O, 'session' | 'audits'> & {
  patch: SessionPatch;
  summary: StepSummary;
  /**
   * The step's own time, as its STEP_EXIT row records it. A step run moves it to the run's entry
   * (StepRunEntry.durationMs), so history holds it once. Absent in results recorded before timings travelled.
   */
  durationMs?: number;
};

/** An activity's answer: the whole output (v1 inputs) or a StepResult (V2 inputs, `reply: 'patch'`). */
export type StepReply<O extends StepOutput = StepOutput> = O | StepResult<O>;

export interface DirectToolCallRequest {
  call: ToolCallRequest;
  tool: McpToolDescriptor;
}

/** How a finished turn ended: its result's `outcome`, and the TurnOutcome search attribute it leaves. */
export const TurnOutcome = {
  Answered: 'ANSWERED',
  Clarify: 'CLARIFY',
  GuardrailBlocked: 'GUARDRAIL_BLOCKED',
  LoopLimit: 'LOOP_LIMIT',
  ToolError: 'TOOL_ERROR',
  PolicyBlocked: 'POLICY_BLOCKED',
  AwaitingApproval: 'AWAITING_APPROVAL',
  Failed: 'FAILED',
} as const;
export type TurnOutcome = (typeof TurnOutcome)[keyof typeof TurnOutcome];

export interface TurnResult {
  success: boolean;
  conversationId: string;
  turnNumber: number;
  turnId: string;
  intent: string;
  state: string;
  payload: Payload;
  context: JsonObject;
  outcome: TurnOutcome;
  configVersion: string;
}

/** Pipeline step activities, in run order. The MCP step is unrolled separately (see McpActivities). */
export const PIPELINE_STEPS_BEFORE_MCP = [
  'LoadOrCreateConversation',
  'ResetConversation',
  'AuditUserInput',
  'PolicyEnforcement',
  'DialogueAct',
  'InteractionPolicy',
  'ActionLifecycle',
  'Correction',
  'Disambiguation',
  'Guardrail',
  'IntentResolution',
  'ResetResolvedIntent',
  'FallbackIntentState',
  'SchemaExtraction',
  'AutoAdvance',
  'PendingAction',
  'ToolOrchestration',
] as const;

export const PIPELINE_STEPS_AFTER_MCP = ['Rules', 'ResponseResolution', 'Memory'] as const;

/** Steps that commit the turn; they also run after a stop so a stopped turn is recorded whole. */
export const COMMIT_STEPS = ['PersistConversation', 'PipelineEnd'] as const;

export type PipelineStepName =
  | (typeof PIPELINE_STEPS_BEFORE_MCP)[number]
  | (typeof PIPELINE_STEPS_AFTER_MCP)[number]
  | (typeof COMMIT_STEPS)[number];

// ---- MCP step, unrolled so each planner iteration and each CALL_TOOL is its own activity ----

export interface ToolRetrySettings {
  maxAttempts: number | null;
  initialIntervalMs: number | null;
  backoffCoefficient: number | null;
  maxIntervalMs: number | null;
  startToCloseTimeoutMs: number | null;
}

/** What workflow code needs to know about a tool to schedule it (no I/O needed). */
export interface McpToolDescriptor {
  toolCode: string;
  toolGroup: string;
  sideEffect: ToolSideEffect;
  requiresApproval: boolean;
  approvalTimeoutMs: number | null;
  retry: ToolRetrySettings;
  /** A request may call it directly through tool_request (D21). */
  directCallable: boolean;
  /** #22: HOLD keeps a call out of retries pending for an operator; absent (older histories): ANSWER. */
  onRetriesExhausted?: 'ANSWER' | 'HOLD';
  /** #22: how long a held call waits for an operator before it falls back to ANSWER. */
  holdTimeoutMs?: number;
}

export interface NextToolGuardConfig {
  enabled: boolean;
  failClosed: boolean;
  /** current tool code (or `__START__`) → allowed next tool codes. */
  allowedNextByCurrentTool: Record<string, string[]>;
}

/** Result of McpPrepare: PRE_AGENT_MCP rules ran, skips were checked, stale MCP context was cleared. */
export interface McpLoopPlan {
  run: boolean;
  /** When run is false: the lifecycle status written (SKIPPED_*, NO_TOOLS_FOR_SCOPE) or PENDING_CLARIFICATION. */
  skipReason: string | null;
  maxLoops: number;
  tools: McpToolDescriptor[];
  nextToolGuard: NextToolGuardConfig;
}

export interface PlannerDecision {
  action: 'CALL_TOOL' | 'ANSWER';
  toolCode: string | null;
  args: JsonObject;
  answer: string | null;
  operationTag: string | null;
}

export interface ToolCallRequest {
  toolCode: string;
  args: JsonObject;
  /** 1-based index of this tool call within the turn. */
  callIndex: number;
  /** Stable across activity retries: `<turn id>/tool/<callIndex>` (sent as Idempotency-Key). */
  idempotencyKey: string;
}

export interface McpPrepareOutput extends StepOutput {
  plan: McpLoopPlan;
}

export interface McpPlanInput extends StepInput {
  iteration: number;
}

export interface McpPlanOutput extends StepOutput {
  decision: PlannerDecision;
}

export interface McpToolCallInput extends StepInput {
  call: ToolCallRequest;
  /** #22 markDone: the result an operator verified; recorded as the tool's result, the tool is not called. */
  verifiedResult?: Json;
}

/** A direct tool call (D21): run it, or — with `failure` — only record that it failed for good. */
export interface DirectToolCallInput extends McpToolCallInput {
  tool: McpToolDescriptor;
  /** Attempts the executor allows; the last one records a failure instead of throwing. */
  maxAttempts: number;
  failure?: { type: string; message: string };
  /**
   * #22: the tool holds for an operator (on_retries_exhausted = HOLD), so the last attempt throws
   * its retryable failure to the workflow instead of recording it as the tool's result.
   */
  holdOnExhausted?: boolean;
}

export type ApprovalDecisionKind = 'APPROVED' | 'REJECTED' | 'EXPIRED';
export interface ApprovalDecision {
  decision: ApprovalDecisionKind;
  reason: string | null;
  decidedBy: string | null;
}
