import type { Json, JsonObject } from '../json';

/**
 * Stages whose rows the engine reads back (trace, what-if, API). Their writers are activities
 * (step-runtime, the pipeline steps, the direct tool path); core's own writers declare theirs beside
 * them (core/mcp/plan-apply.ts, core/mcp/outcomes.ts, core/rules/engine.ts).
 */
export const AuditStage = {
  StepEnter: 'STEP_ENTER',
  StepExit: 'STEP_EXIT',
  StepError: 'STEP_ERROR',
  UserInput: 'USER_INPUT',
  AssistantOutput: 'ASSISTANT_OUTPUT',
  EngineReturn: 'ENGINE_RETURN',
  /** The turn failed for good on an engine error (a typed code); the turn's last row (Java's controller writes it). */
  EngineKnownFailure: 'ENGINE_KNOWN_FAILURE',
  /** The turn failed for good on an unexpected error (a driver's, a library's); the turn's last row. */
  EngineUnknownFailure: 'ENGINE_UNKNOWN_FAILURE',
  /** Stored as `RULE_APPLIED (<source>)`. */
  RuleApplied: 'RULE_APPLIED',
  /** A decision the driver made on its own (loop limit, guardrail block, …): activities/turn-decision.ts. */
  TurnDecision: 'TURN_DECISION',
  /** An SRE's action on a turn (api/console/actions.ts): the operator's row, not one of the turn's own. */
  OperatorAction: 'OPERATOR_ACTION',
} as const;

/** STEP_ENTER: the frame every step row opens with. */
export type StepFramePayload = { step: string; stepClass: string };

export type StepExitPayload = StepFramePayload & { outcome: 'Continue' | 'Stop'; durationMs: number };

export type StepErrorPayload = StepFramePayload & {
  durationMs: number;
  errorType: string;
  errorMessage: string;
  _errorMeta: { retryable: boolean; attempt: number };
};

/**
 * ENGINE_KNOWN_FAILURE / ENGINE_UNKNOWN_FAILURE: Java's {errorCode, message, recoverable}, and the step
 * and attempt the turn failed on. `recoverable`: a retry of the turn may succeed (the API's `retryable`).
 * `attempt` is absent when only the workflow saw the failure (a last attempt cut off by its timeout).
 */
export type EngineFailurePayload = StepFramePayload & {
  errorCode: string;
  message: string;
  recoverable: boolean;
  attempt?: number;
};

export type UserInputPayload = { text: string };

export type AssistantOutputPayload = {
  output: Json;
  outputFormat: string | null;
  responseType: string;
  responseId: number;
  intent: string;
  state: string;
  context: JsonObject;
  schemaJson: Json;
};

export type EngineReturnPayload = {
  intent: string;
  state: string;
  commit: string;
  conversationStatus: string;
  final_result: { intent: string; state: string; payload: Json; context: JsonObject };
};

/** TOOL_ORCHESTRATION_REQUEST: a request's direct tool call (D21), before it runs. */
export type OrchestrationRequestPayload = { tool_code: string; tool_group: string | null; args: JsonObject };

/** TOOL_ORCHESTRATION_RESULT: `result` only when the tool ran (status SUCCESS). */
export type OrchestrationResultPayload = {
  tool_code: string;
  tool_group: string | null;
  status: string;
  result?: Json;
};

export type OrchestrationErrorPayload = {
  tool_code: string;
  tool_group: string | null;
  args: JsonObject;
  error: string;
  errorType: string;
};

/**
 * `_meta`, which the writer adds to every stored row when the audit policy keeps it
 * (activities/runtime/audit-rows.ts): the row's own fields and those it shares with its write.
 */
export type StoredAuditMeta = {
  stage: string;
  intent: string;
  state: string;
  conversationId: string;
  turnNumber: number;
  turnId: string;
  emittedAt: string;
  inputParams: JsonObject;
  userInputParams: JsonObject;
  context: JsonObject;
};
