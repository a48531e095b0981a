import type { AuditRecord } from '../audit';
import { EngineError, ErrorType } from '../errors';
import { isJsonObject, type Json, type JsonObject } from '../json';
import type {
  ApprovalDecision,
  DirectToolCallInput,
  DirectToolCallRequest,
  McpPlanInput,
  McpPlanOutput,
  McpPrepareOutput,
  McpToolCallInput,
  McpToolDescriptor,
  PipelineStepName,
  StepInput,
  StepOutput,
  TurnDecisionRecord,
} from './contracts';
import type { HeldToolDecisionAction } from './operator-decision';
import type { PlannedStep } from './step-runs';

export interface ApprovalRequest {
  toolCode: string;
  args: StepInput['session']['inputParams'];
  callIndex: number;
  sideEffect: McpToolDescriptor['sideEffect'];
  timeoutMs: number;
}

/**
 * A person's decision on an approval, and whether the executor wrote the request row (MCP_TOOL_APPROVAL_REQUESTED)
 * as the turn parked; when it did not (the in-process runner, what-if, a turn parked before the workflow wrote it),
 * the driver writes it with the decision.
 */
export interface AwaitedApproval extends ApprovalDecision {
  requestAudited?: true;
}

export type { TurnDecisionRecord } from './contracts';

/** A tool call out of retries that waits for an operator (#22). */
export interface HeldToolRequest {
  toolCode: string;
  callIndex: number;
  idempotencyKey: string;
  sideEffect: McpToolDescriptor['sideEffect'];
  attempts: number;
  failureType: string;
  error: string;
  /** A NON_IDEMPOTENT_WRITE that may have been applied: the operator verifies before retrying. */
  outcomeUnknown: boolean;
  timeoutMs: number;
  /** 1 for the first hold of this call, 2 after a retry that failed again, … */
  hold: number;
}

/** What the operator chose; `expired` is the hold timeout, which falls back to ANSWER. */
export type HeldToolAction = HeldToolDecisionAction | 'expired';

export interface HeldToolResolution {
  action: HeldToolAction;
  decidedBy: string | null;
  reason: string | null;
  /** markDone: the result the operator verified, recorded as the tool's result without calling it. */
  result?: Json;
}

/** A tool activity that failed for good (non-retryable, or out of retries). */
export class ToolCallFailure extends Error {
  constructor(
    readonly failureType: string,
    message: string,
    readonly attempts: number
  ) {
    super(message);
    this.name = 'ToolCallFailure';
  }
}

/** The detail an activity's failure reports its attempt under (activities/runtime/failure.ts). */
export const FAILED_ATTEMPT_DETAIL = 'failedAttempt';

/**
 * Set beside the failed attempt when that attempt could not store its failure rows (its STEP_ERROR and, when no
 * retry follows, the turn's failure row): the database was still down once its outage wait ran out. Absent, the
 * attempt stored them, as every failure recorded before it was added did.
 */
export const FAILURE_ROWS_UNWRITTEN_DETAIL = 'failureRowsUnwritten';

/** The detail of a failure that reports its attempt, or null: a timeout, or an error that did not pass the step wrapper. */
function attemptDetail(failure: unknown): JsonObject | null {
  const details: unknown = failure instanceof Error ? (failure as { details?: unknown }).details : undefined;
  if (!Array.isArray(details)) return null;
  for (const detail of details as unknown[]) {
    if (isJsonObject(detail) && typeof detail[FAILED_ATTEMPT_DETAIL] === 'number') return detail;
  }
  return null;
}

/**
 * The attempt a failure of an activity says it failed on, or null when it says nothing: a timeout,
 * or an error that did not pass the step wrapper. Temporal tells the workflow only the retry state.
 */
export function reportedAttempt(failure: unknown): number | null {
  const attempt = attemptDetail(failure)?.[FAILED_ATTEMPT_DETAIL];
  return typeof attempt === 'number' ? attempt : null;
}

/** Whether a failure that reports its attempt says that attempt's failure rows were not stored. */
export function reportedRowsUnwritten(failure: unknown): boolean {
  return attemptDetail(failure)?.[FAILURE_ROWS_UNWRITTEN_DETAIL] === true;
}

/**
 * The type of an activity's failure. Temporal's ApplicationFailure and our EngineError carry one;
 * any other error is typed by its class, as Temporal types the ApplicationFailure it makes of it
 * across the wire — so the in-process runner (which sees the error itself) and the workflow agree.
 */
function typeOf(err: Error): string {
  if (err instanceof EngineError) return err.type;
  if (err.name !== 'ApplicationFailure') return err.name;
  const type = (err as { type?: unknown }).type;
  return typeof type === 'string' ? type : ErrorType.ToolExecutionFailed;
}

/**
 * A tool activity's failure for good, as the driver's ToolCallFailure: one rule for both runners.
 * `failure`: what the activity threw (in process) or the ActivityFailure's cause (workflow);
 * `attemptsMade`: the attempts it ran, the last one included. The failure is its own root cause:
 * the error it wraps (the driver's) keeps words that never leave the process (db/error-text.ts),
 * while the failure's message is the text the tool allows out, for the audit rows and the hold.
 */
export function toolCallFailure(failure: unknown, attemptsMade: number): ToolCallFailure {
  if (!(failure instanceof Error))
    return new ToolCallFailure(ErrorType.ToolExecutionFailed, String(failure), attemptsMade);
  return new ToolCallFailure(typeOf(failure), failure.message, attemptsMade);
}

/**
 * Runs the units of a turn. The Temporal workflow implements it with activities (plus markers
 * and signals); the in-process runner calls the same activity functions directly.
 */
export interface TurnExecutor {
  /**
   * `next`: the steps the driver will ask for after this one, in order, if no step stops the turn
   * first; the workflow runs a step and the local steps after it as one activity (core/turn/step-runs.ts).
   * A step that run already ran may be answered at once, without a promise: workflow code pays for
   * every promise it creates (the SDK records a stack trace for each), and most steps are answered so.
   */
  step(name: PipelineStepName, input: StepInput, next: readonly PlannedStep[]): StepOutput | Promise<StepOutput>;
  /**
   * The steps before it announce it in their `next`, so a step run may have run it already. `next`:
   * the steps the driver asks for after it when MCP skips its planner loop.
   */
  mcpPrepare(input: StepInput, next: readonly PlannedStep[]): Promise<McpPrepareOutput>;
  mcpPlan(input: McpPlanInput): Promise<McpPlanOutput>;
  /** Throws ToolCallFailure when the tool failed for good. */
  mcpToolCall(input: McpToolCallInput, tool: McpToolDescriptor): Promise<StepOutput>;
  /** `next`: the steps the driver asks for after McpFinalize, as for `step`. */
  mcpFinalize(input: StepInput, next: readonly PlannedStep[]): Promise<StepOutput>;
  /**
   * D16: waits for a person's decision on the call or its timeout. `inputFor` gives the input of the activity
   * that audits the request as the turn parks (core/mcp/outcomes.ts approvalRequestedInput).
   */
  awaitApproval(request: ApprovalRequest, inputFor?: (suffix: string) => StepInput): Promise<AwaitedApproval>;
  record(decision: TurnDecisionRecord): Promise<void>;
  /**
   * #22: keeps a failed call pending until an operator decides or the hold times out. `inputFor`
   * gives the input of the activity that audits the hold. Absent, or null: this executor cannot
   * wait (in-process runner, the first workflow type), and the failure stands (core/mcp/hold.ts resolveHeldCall).
   * A `fail` decision ends the turn inside the executor and does not return.
   */
  holdToolCall?(request: HeldToolRequest, inputFor: (suffix: string) => StepInput): Promise<HeldToolResolution | null>;
  /**
   * Whether the planner loop refuses a call that repeats this turn's direct tool call its tool failed
   * (core/mcp/direct-failure.ts), asked only when the planner asks for one. Absent: it does (the in-process runner).
   * The workflow asks its history, so a turn recorded before the refusal replays the call it made.
   */
  refusesFailedDirectRepeat?(): boolean;
  /**
   * Whether a NON_IDEMPOTENT_WRITE whose last attempt a stopping worker cut (WorkerShutdown) is of unknown outcome,
   * so held (core/mcp/hold.ts), asked only for such a failure. Absent: it is. The workflow asks its history, so a turn
   * recorded before it replays taking that failure for the tool's.
   */
  holdsShutdownCutWrite?(): boolean;
}

/** The input with one more audit row to write first (carried rows keep their own key). */
export function withAudits(input: StepInput, record: AuditRecord): StepInput {
  return {
    ...input,
    carryAudits: [...(input.carryAudits ?? []), record],
    carryKey: input.carryKey ?? `${input.callKey}-carried`,
  };
}

/** Audits decided in driver code, waiting for the next activity to persist them. */
export interface CarriedAudits {
  audits: AuditRecord[];
  key: string;
}

/** Input of the DirectToolCall activity for the tool ToolOrchestration let through (D21). */
export function directToolCallInput(
  input: StepInput,
  out: StepOutput,
  request: DirectToolCallRequest,
  maxAttempts: number,
  holdOnExhausted = false
): DirectToolCallInput {
  const next = { ...input, session: out.session, callKey: `${input.callKey}-direct-tool`, ...request, maxAttempts };
  // Only set when it holds, so that inputs (and histories) of tools that answer stay as they were.
  return holdOnExhausted ? { ...next, holdOnExhausted } : next;
}

/** The same call, asking the activity only to record that it failed for good. */
export function failedDirectToolCallInput(next: DirectToolCallInput, failure: ToolCallFailure): DirectToolCallInput {
  return {
    ...next,
    callKey: `${next.callKey}-failed`,
    failure: { type: failure.failureType, message: failure.message },
  };
}
