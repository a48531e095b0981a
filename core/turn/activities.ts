import type { AuditRecord } from '../audit';
import type {
  DirectToolCallInput,
  McpPlanInput,
  McpPlanOutput,
  McpPrepareOutput,
  McpToolCallInput,
  PipelineStepName,
  StepInput,
  StepReply,
  TurnDecisionRecord,
  TurnInput,
} from './contracts';
import type { StepRunInput, StepRunResult } from './step-runs';
import type { StepName } from './steps';

export type StepActivity = (input: StepInput) => Promise<StepReply>;

export interface RecordDecisionInput {
  turn: TurnInput;
  session: StepInput['session'];
  callKey: string;
  decision: TurnDecisionRecord;
  audits: AuditRecord[];
}

/** What the workflow saw of the failure that ends a turn (workflows/turn-failure.ts). */
export interface TurnFailureFacts {
  /** The activity type that failed (a step, or a step run), or the step the workflow failed the turn at. */
  step: string;
  /** The failure's type: an engine code, TIMEOUT, TOOL_HOLD_FAILED, or an unexpected error's class name. */
  type: string;
  message: string;
  nonRetryable: boolean;
  /** The attempt that failed, when the failure reported it. */
  attempt: number | null;
}

export interface TurnFailureInput {
  turn: TurnInput;
  /** The session as the last step answered it (a blank one when none did), for the row's `_meta`. */
  session: StepInput['session'];
  failure: TurnFailureFacts;
}

/**
 * Every activity a turn runs, by activity type name. The worker registers an object of this
 * shape (pipeline + MCP factories); the workflow proxies it, importing this file as a type only.
 */
export type TurnActivities = { [K in PipelineStepName]: StepActivity } & {
  McpPrepare(input: StepInput): Promise<StepReply<McpPrepareOutput>>;
  McpPlan(input: McpPlanInput): Promise<StepReply<McpPlanOutput>>;
  McpToolCall(input: McpToolCallInput): Promise<StepReply>;
  /** #22: audits a tool call held for an operator (TOOL_HELD) and their decision (TOOL_HOLD_RESOLVED). */
  McpToolHold(input: StepInput): Promise<StepReply>;
  /** The tool of a request's direct tool_request, with the tool's own retry policy (D21). */
  DirectToolCall(input: DirectToolCallInput): Promise<StepReply>;
  McpFinalize(input: StepInput): Promise<StepReply>;
  /**
   * conversationTurn (v1) only: writes a driver decision as a TURN_DECISION audit row. V2 hands
   * decisions to the next step activity instead (StepInput.decisions).
   */
  RecordTurnDecision(input: RecordDecisionInput): Promise<void>;
  /**
   * Writes the turn's ENGINE_*_FAILURE row when the workflow fails it and no step wrote one: a last attempt
   * cut off by its timeout, an operator's fail on a held call. Writes nothing when the failing step did.
   */
  TurnFailure(input: TurnFailureInput): Promise<void>;
  /** Consecutive local steps in one local activity (core/turn/step-runs.ts). */
  LocalSteps(input: StepRunInput): Promise<StepRunResult>;
  /** A step that runs as a regular activity and the local steps after it, in one regular activity. */
  RegularSteps(input: StepRunInput): Promise<StepRunResult>;
};

type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compile-time guard: the registered activity types are exactly the step table's names. */
export const REGISTRATION_MATCHES_STEP_TABLE: SameKeys<keyof TurnActivities, StepName> = true;
