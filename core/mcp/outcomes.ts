import { audit, type AuditRecord } from '../audit';
import type { JsonObject } from '../json';
import type { Session } from '../session';
import { cloneSession } from '../step/scope';
import type {
  ApprovalDecision,
  ApprovalDecisionKind,
  McpToolDescriptor,
  PlannerDecision,
  StepInput,
  ToolCallRequest,
} from '../turn/contracts';
import { withAudits, type ApprovalRequest, type AwaitedApproval, type ToolCallFailure } from '../turn/executor';
import { approvalDeniedAnswer, BlockReason, Fallback, McpAudit, McpOutcome, McpStatus } from './constants';
import { mcpContext, writeFinalAnswer, writeLifecycle } from './context';
import { DIRECT_CALL_FAILED_REASON, type FailedDirectCall } from './direct-failure';
import { publicToolErrorMessage } from './tool-error-text';

/**
 * Outcomes the loop driver decides itself (it runs in workflow code and cannot write): a
 * blocked, suppressed, rejected or failed tool call. Each returns the next session (a copy) and
 * the audits the next activity persists for it.
 */
export interface Applied {
  session: Session;
  audits: AuditRecord[];
}

interface Ending {
  answer: string;
  status: string;
  outcome: string;
  blocked?: boolean;
  error?: boolean;
  errorMessage?: string | null;
  lastAction?: string;
  lastToolGroup?: string | null;
}

function endLoop(session: Session, toolCode: string, args: JsonObject, e: Ending): Session {
  const next = cloneSession(session);
  writeFinalAnswer(next, e.answer);
  writeLifecycle(next, {
    status: e.status,
    outcome: e.outcome,
    finished: true,
    blocked: e.blocked ?? false,
    error: e.error ?? false,
    lastAction: e.lastAction ?? 'CALL_TOOL',
    lastToolCode: toolCode,
    lastToolGroup: e.lastToolGroup ?? null,
    lastToolArgs: args,
    errorMessage: e.errorMessage ?? null,
  });
  return next;
}

function blocked(reason: string, answer: string): Ending {
  return {
    answer,
    status: McpStatus.GuardrailBlocked,
    outcome: McpOutcome.Blocked,
    blocked: true,
    errorMessage: reason,
  };
}

export function applyPolicyRestricted(session: Session, d: PlannerDecision): Applied {
  const toolCode = d.toolCode ?? '';
  const next = endLoop(session, toolCode, d.args, blocked(BlockReason.PolicyRestricted, Fallback.policyRestricted));
  const payload = {
    tool_code: toolCode,
    args: d.args,
    operation_tag: d.operationTag,
    error: 'planner-marked restricted operation',
  };
  return { session: next, audits: [audit(McpAudit.ToolError, payload)] };
}

export function applyGuardBlock(session: Session, d: PlannerDecision, reason: string, currentTool: string): Applied {
  const toolCode = d.toolCode ?? '';
  const next = endLoop(session, toolCode, d.args, blocked(reason, Fallback.guardrailBlocked));
  const payload = { tool_code: toolCode, args: d.args, error: reason, current_observation_tool: currentTool };
  return { session: next, audits: [audit(McpAudit.ToolError, payload)] };
}

export function applyDuplicateSuppressed(session: Session, d: PlannerDecision, summary: string | null): Applied {
  const toolCode = d.toolCode ?? '';
  const answer = summary ?? Fallback.unsafeNextStep;
  const ending: Ending = { answer, status: McpStatus.Answer, outcome: McpOutcome.Answered, lastAction: 'ANSWER' };
  const next = endLoop(session, toolCode, d.args, ending);
  const payload = { answer, reason: 'DUPLICATE_TOOL_CALL_SUPPRESSED', tool_code: toolCode, args: d.args };
  return { session: next, audits: [audit(McpAudit.DuplicateSuppressed, payload)] };
}

/** The loop's end on a tool that failed for good: its final answer, lifecycle and `toolExecutionError`. */
function failedToolSession(
  session: Session,
  call: Pick<ToolCallRequest, 'toolCode' | 'args'>,
  toolGroup: string | null,
  failure: { failureType: string; publicMessage: string; attempts: number }
): Session {
  const ending: Ending = {
    answer: Fallback.toolError,
    status: McpStatus.ToolError,
    outcome: McpOutcome.Error,
    error: true,
    errorMessage: failure.publicMessage,
    lastToolGroup: toolGroup,
  };
  const next = endLoop(session, call.toolCode, call.args, ending);
  mcpContext(next)['toolExecutionError'] = {
    toolCode: call.toolCode,
    toolGroup,
    errorMessage: failure.publicMessage,
    errorType: failure.failureType,
    rootCauseMessage: failure.publicMessage,
    rootCauseClass: failure.failureType,
    attempts: failure.attempts,
    args: call.args,
  };
  return next;
}

export function applyToolFailure(
  session: Session,
  call: ToolCallRequest,
  tool: McpToolDescriptor,
  failure: ToolCallFailure
): Applied {
  // The context reaches the caller: it says which tool failed and how; the audit rows below keep the failure's
  // message (for a SQL tool, the text db/error-text.ts allows).
  const publicMessage = publicToolErrorMessage(call.toolCode, failure.failureType, failure.message);
  const { failureType, attempts } = failure;
  const next = failedToolSession(session, call, tool.toolGroup, { failureType, publicMessage, attempts });
  const common = { tool_code: call.toolCode, tool_group: tool.toolGroup, args: call.args };
  const error = { ...common, error: failure.message, error_class: failure.failureType, error_message: failure.message };
  const toolError = audit(McpAudit.ToolError, {
    ...error,
    root_cause_class: failure.failureType,
    root_cause_message: failure.message,
    attempts: failure.attempts,
  });
  const rootCause = audit(McpAudit.ToolRootCause, {
    ...common,
    error_message: failure.message,
    root_cause_message: failure.message,
    preflight_diagnostics: null,
  });
  return { session: next, audits: [toolError, rootCause] };
}

/**
 * The planner asked for the call the request's direct tool path already made this turn, and the tool failed it
 * (core/mcp/direct-failure.ts): it is not sent again — an upstream that asked to wait, or refused the call, would
 * get a second request within the same turn. The loop ends as if the call had failed again with that failure (no
 * attempt made: `attempts` 0), and MCP_TOOL_REPEAT_REFUSED says why it was not sent.
 */
export function applyRepeatRefused(session: Session, d: PlannerDecision, failed: FailedDirectCall): Applied {
  const toolCode = d.toolCode ?? failed.toolCode;
  const failure = { failureType: failed.errorType, publicMessage: failed.errorMessage, attempts: 0 };
  const next = failedToolSession(session, { toolCode, args: d.args }, failed.toolGroup, failure);
  const payload = {
    tool_code: toolCode,
    tool_group: failed.toolGroup,
    args: d.args,
    reason: DIRECT_CALL_FAILED_REASON,
    error: failed.errorMessage,
    error_type: failed.errorType,
  };
  return { session: next, audits: [audit(McpAudit.ToolRepeatRefused, payload)] };
}

/** A person's decision on a call (MCP_TOOL_APPROVAL_GRANTED / _REJECTED / _EXPIRED), read back by the what-if replay. */
export type ApprovalDecisionPayload = {
  tool_code: string;
  call_index: number;
  decision: ApprovalDecisionKind;
  reason: string | null;
  decided_by: string | null;
};

/**
 * MCP_TOOL_APPROVAL_REQUESTED: the call that waits for a person. Written as the turn parks it names when the wait
 * ends (`expires_at`); a turn parked before that wrote it with the decision, without it.
 */
export function approvalRequestedAudit(request: ApprovalRequest, expiresAt?: string): AuditRecord {
  return audit(McpAudit.ApprovalRequested, {
    tool_code: request.toolCode,
    args: request.args,
    call_index: request.callIndex,
    side_effect: request.sideEffect,
    timeout_ms: request.timeoutMs,
    ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
  });
}

/**
 * The McpToolHold input that writes MCP_TOOL_APPROVAL_REQUESTED as the turn parks on an approval until `expiresAt`.
 * Its session, which the row's `_meta.context` copies, shows the call waiting and not run: the planner's CALL_TOOL
 * left the lifecycle TOOL_RESULT (toolExecuted true) for the call the tool activity makes next, which has not run.
 * An activity's input is no command, so replaying a turn parked before this needs no patch.
 */
export function approvalRequestedInput(
  inputFor: (suffix: string) => StepInput,
  request: ApprovalRequest,
  expiresAt: string
): StepInput {
  const input = inputFor('requested');
  const session = cloneSession(input.session);
  writeLifecycle(session, {
    status: McpStatus.AwaitingApproval,
    outcome: McpOutcome.InProgress,
    finished: false,
    lastAction: 'CALL_TOOL',
    lastToolCode: request.toolCode,
    lastToolArgs: request.args,
  });
  return withAudits({ ...input, session }, approvalRequestedAudit(request, expiresAt));
}

/** The rows of a decision: the request too, unless the executor wrote it as the turn parked. */
export function approvalAudits(request: ApprovalRequest, d: AwaitedApproval): AuditRecord[] {
  const stage =
    d.decision === 'APPROVED'
      ? McpAudit.ApprovalGranted
      : d.decision === 'REJECTED'
        ? McpAudit.ApprovalRejected
        : McpAudit.ApprovalExpired;
  const decided = audit(stage, {
    tool_code: request.toolCode,
    call_index: request.callIndex,
    decision: d.decision,
    reason: d.reason,
    decided_by: d.decidedBy,
  } satisfies ApprovalDecisionPayload);
  return d.requestAudited ? [decided] : [approvalRequestedAudit(request), decided];
}

export function applyApprovalDenied(
  session: Session,
  call: ToolCallRequest,
  tool: McpToolDescriptor,
  d: ApprovalDecision
): Session {
  const expired = d.decision === 'EXPIRED';
  const ending: Ending = {
    answer: approvalDeniedAnswer(call.toolCode, expired),
    status: expired ? McpStatus.ApprovalExpired : McpStatus.ApprovalRejected,
    outcome: McpOutcome.Blocked,
    blocked: true,
    errorMessage: expired ? BlockReason.ApprovalExpired : BlockReason.ApprovalRejected,
    lastToolGroup: tool.toolGroup,
  };
  return endLoop(session, call.toolCode, call.args, ending);
}
