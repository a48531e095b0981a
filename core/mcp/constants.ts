/**
 * Names the MCP step shares with rules, responses and operators: statuses and outcomes written to
 * `context.mcp.lifecycle`, fallback answers, audit stages and the semantic tool codes. Rules match
 * on these strings (`$[?(@.context.mcp.lifecycle.outcome == 'BLOCKED')]`), so they are contract.
 */
export const McpStatus = {
  SkippedByGuardrail: 'SKIPPED_BY_GUARDRAIL',
  SkippedSchemaIncomplete: 'SKIPPED_SCHEMA_INCOMPLETE',
  SkippedDialogueAct: 'SKIPPED_DIALOGUE_ACT',
  SkippedGreeting: 'SKIPPED_GREETING',
  NoToolsForScope: 'NO_TOOLS_FOR_SCOPE',
  ToolResult: 'TOOL_RESULT',
  Answer: 'ANSWER',
  GuardrailBlocked: 'GUARDRAIL_BLOCKED_NEXT_TOOL',
  ToolError: 'TOOL_ERROR',
  ApprovalRejected: 'APPROVAL_REJECTED',
  ApprovalExpired: 'APPROVAL_EXPIRED',
  /** The call waits for a person's decision, not run: the context the MCP_TOOL_APPROVAL_REQUESTED row is written with. */
  AwaitingApproval: 'AWAITING_APPROVAL',
  DirectRequestNotAllowed: 'DIRECT_REQUEST_NOT_ALLOWED',
  DirectRequestNeedsApproval: 'DIRECT_REQUEST_NEEDS_APPROVAL',
} as const;
export type McpStatusName = (typeof McpStatus)[keyof typeof McpStatus];

export const McpOutcome = {
  Skipped: 'SKIPPED',
  NoTools: 'NO_TOOLS',
  InProgress: 'IN_PROGRESS',
  Answered: 'ANSWERED',
  Blocked: 'BLOCKED',
  Error: 'ERROR',
} as const;
export type McpOutcomeName = (typeof McpOutcome)[keyof typeof McpOutcome];

/** Why a planner-proposed call was stopped before it ran (lifecycle.errorMessage). */
export const BlockReason = {
  NextTool: 'NEXT_TOOL_GUARDRAIL_BLOCKED',
  SemanticSequence: 'SEMANTIC_PIPELINE_SEQUENCE_GUARD_BLOCKED',
  ToolNotInScope: 'TOOL_NOT_IN_SCOPE',
  PolicyRestricted: 'POLICY_RESTRICTED_OPERATION',
  ApprovalRejected: 'APPROVAL_REJECTED',
  ApprovalExpired: 'APPROVAL_EXPIRED',
  DirectRequestNotAllowed: 'DIRECT_REQUEST_NOT_ALLOWED',
  DirectRequestNeedsApproval: 'DIRECT_REQUEST_NEEDS_APPROVAL',
} as const;

export const Fallback = {
  planError: "I couldn't plan tool usage safely. Can you rephrase your question?",
  unsafeNextStep: "I couldn't decide the next tool step safely.",
  toolError: 'Tool execution failed',
  guardrailBlocked: 'Tool sequence guardrail blocked this action. Please rephrase or provide missing details.',
  policyRestricted: 'This request is restricted by policy. Read-only operations are allowed.',
  semanticUnsupported: 'This operation is not supported for current filters.',
} as const;

export function approvalDeniedAnswer(toolCode: string, expired: boolean): string {
  return expired
    ? `The action ${toolCode} was not approved in time, so it was not run.`
    : `The action ${toolCode} was rejected by the approver, so it was not run.`;
}

/** Observation status of a call refused for its arguments: the planner sees why; the tool never ran. */
export const ARGS_REJECTED_STATUS = 'ARGS_REJECTED';

export const McpAudit = {
  ContextCleared: 'MCP_CONTEXT_CLEARED',
  SkippedSchemaIncomplete: 'MCP_SKIPPED_SCHEMA_INCOMPLETE',
  SkippedPendingClarification: 'MCP_SKIPPED_PENDING_CLARIFICATION',
  NoToolsAvailable: 'MCP_NO_TOOLS_AVAILABLE',
  PlanInput: 'MCP_PLAN_LLM_INPUT',
  PlanOutput: 'MCP_PLAN_LLM_OUTPUT',
  ToolCall: 'MCP_TOOL_CALL',
  ToolResult: 'MCP_TOOL_RESULT',
  ToolError: 'MCP_TOOL_ERROR',
  /** A call whose arguments did not match the tool's input schema; it was not run (issue #21). */
  ToolArgsRejected: 'TOOL_ARGS_REJECTED',
  ToolRootCause: 'MCP_TOOL_ROOT_CAUSE',
  DuplicateSuppressed: 'MCP_DUPLICATE_TOOL_CALL_SUPPRESSED',
  /** A planner call repeating this turn's direct tool call that its tool failed; it was not sent (direct-failure.ts). */
  ToolRepeatRefused: 'MCP_TOOL_REPEAT_REFUSED',
  FinalAnswer: 'MCP_FINAL_ANSWER',
  LoopLimitReached: 'MCP_LOOP_LIMIT_REACHED',
  ApprovalRequested: 'MCP_TOOL_APPROVAL_REQUESTED',
  ApprovalGranted: 'MCP_TOOL_APPROVAL_GRANTED',
  ApprovalRejected: 'MCP_TOOL_APPROVAL_REJECTED',
  ApprovalExpired: 'MCP_TOOL_APPROVAL_EXPIRED',
  /** A call out of retries the turn holds for an operator (#22), and the operator's decision. */
  ToolHeld: 'TOOL_HELD',
  ToolHoldResolved: 'TOOL_HOLD_RESOLVED',
  /** A ce_mcp_db_tool query passed its checks and is about to run (activities/tools/db/db-tool.ts). */
  DbPreflight: 'MCP_DB_PREFLIGHT',
  DbSqlExecution: 'MCP_DB_SQL_EXECUTION',
  DynamicSqlExecution: 'DYNAMIC_SQL_EXECUTION',
  DynamicSqlExecutionError: 'DYNAMIC_SQL_EXECUTION_ERROR',
  OrchestrationRequest: 'TOOL_ORCHESTRATION_REQUEST',
  OrchestrationResult: 'TOOL_ORCHESTRATION_RESULT',
  OrchestrationError: 'TOOL_ORCHESTRATION_ERROR',
} as const;

export const SemanticTool = {
  interpret: 'db.semantic.interpret',
  query: 'db.semantic.query',
  postgres: 'postgres.query',
} as const;

/**
 * Approval wait when neither the tool row nor ce_config says otherwise: the default of McpToolStep.APPROVAL_TIMEOUT_MS
 * (core/config/settings/mcp.ts declares it with this) and the loop's own fallback for a descriptor without a wait.
 */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 15 * 60 * 1000;

/** How long a held tool call (#22) waits for an operator when its row sets no hold_timeout_ms. */
export const DEFAULT_HOLD_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** Current-tool key of the configured next-tool guard before any tool has run. */
export const FLOW_START = '__START__';

export const POLICY_RESTRICTED_TAG = 'POLICY_RESTRICTED_OPERATION';

/** Per-turn MCP input params, cleared with the MCP context at the start of each planner run. */
export const MCP_TURN_PARAMS = [
  'mcp_action',
  'mcp_status',
  'mcp_tool_code',
  'mcp_tool_group',
  'mcp_tool_args',
  'mcp_observations',
  'mcp_final_answer',
  'mcp_operation_tag',
] as const;
