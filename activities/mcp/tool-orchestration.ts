import type { OrchestrationRequestPayload, OrchestrationResultPayload } from '../../core/audit/payloads';
import { EngineError, ErrorType } from '../../core/errors';
import { isJsonObject, tryParseJson, type Json } from '../../core/json';
import { BlockReason, McpAudit } from '../../core/mcp/constants';
import { checkToolArgs, toolArgsRejected } from '../../core/mcp/tool-args';
import { decideToolCall, type ToolCallDecision } from '../../core/mcp/tool-policy';
import {
  requireEnabledTool,
  nextToolGuardConfig,
  normalizeToolGroup,
  toolDescriptor,
  toolsInScope,
} from '../../core/mcp/tools';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';
import { recordFailure, writeExecution, type DirectRequest } from './direct-tool-result';

/**
 * ToolOrchestration, the direct tool path (§6.9): a request carrying `tool_request` asks for
 * exactly one tool. The request obeys the planner's tool policy (D21, core/mcp/tool-policy.ts):
 * scope for the current intent and state, the next-tool guardrail, whether the tool may be
 * called directly at all, and approval. A tool that passes is handed to the executor, which runs
 * it as a DirectToolCall activity with the tool's own retry policy; a refusal is recorded as the
 * tool's result. The request is read from this request's own params only, so it is never
 * replayed on a later turn (D10).
 */
function parseToolRequest(raw: Json | undefined): DirectRequest | null {
  const value = typeof raw === 'string' ? tryParseJson(raw) : raw;
  if (!isJsonObject(value)) return null;
  const code = value['tool_code'] ?? value['toolCode'];
  const group = value['tool_group'] ?? value['toolGroup'];
  const args = value['args'];
  return {
    toolCode: typeof code === 'string' ? code.trim() : '',
    toolGroup: typeof group === 'string' && group.trim() !== '' ? normalizeToolGroup(group) : null,
    args: isJsonObject(args) ? args : {},
  };
}

function decide(ctx: StepContext, req: DirectRequest): ToolCallDecision {
  if (req.toolCode === '') throw new EngineError(ErrorType.ToolArgsInvalid, 'tool_request.tool_code is required');
  const row = requireEnabledTool(ctx.snapshot, req.toolCode);
  const { intent, state } = ctx.scope.session;
  return decideToolCall({
    origin: 'DIRECT',
    toolCode: row.toolCode,
    tools: toolsInScope(ctx.snapshot, intent, state).map((r) => toolDescriptor(r, ctx.snapshot)),
    // A request's tool starts the turn's tool sequence.
    observations: [],
    nextToolGuard: nextToolGuardConfig(ctx.snapshot),
  });
}

function refusal(req: DirectRequest, reason: string): EngineError {
  const why: Record<string, string> = {
    [BlockReason.DirectRequestNotAllowed]: 'may not be called directly from a request (allow_direct_request)',
    [BlockReason.DirectRequestNeedsApproval]: 'needs human approval; ask for it in the conversation instead',
  };
  const type = why[reason] ? ErrorType.ToolNotAllowed : ErrorType.GuardrailBlocked;
  return new EngineError(
    type,
    `Tool ${req.toolCode} ${why[reason] ?? `is blocked by the tool guardrail (${reason})`}`,
    {
      details: { reason },
    }
  );
}

function scopeMismatch(ctx: StepContext, req: DirectRequest): StepOutput {
  const { scope } = ctx;
  writeExecution(ctx, req, 'SKIPPED_SCOPE_MISMATCH', {
    errorMessage: `Tool ${req.toolCode} is not enabled for ${scope.session.intent}/${scope.session.state}`,
  });
  scope.audit(McpAudit.OrchestrationResult, {
    tool_code: req.toolCode,
    tool_group: req.toolGroup,
    status: 'SKIPPED_SCOPE_MISMATCH',
  } satisfies OrchestrationResultPayload);
  return scope.output();
}

/** The previous turn's direct-tool result is request-scoped too (D10): rules must not match it again. */
function clearPreviousExecution(ctx: StepContext): void {
  const mcp = ctx.scope.session.context['mcp'];
  if (isJsonObject(mcp)) delete mcp['toolExecution'];
}

export async function toolOrchestration(ctx: StepContext): Promise<StepOutput> {
  const { scope } = ctx;
  clearPreviousExecution(ctx);
  const req = parseToolRequest(scope.session.userInputParams['tool_request']);
  const skip = scope.session.inputParams['skip_tool_execution'];
  if (!req || skip === true || skip === 'true') return scope.output();
  scope.session.inputParams['tool_request'] = { tool_code: req.toolCode, tool_group: req.toolGroup, args: req.args };
  const request: OrchestrationRequestPayload = { tool_code: req.toolCode, tool_group: req.toolGroup, args: req.args };
  scope.audit(McpAudit.OrchestrationRequest, request);
  let decision: ToolCallDecision;
  try {
    decision = decide(ctx, req);
  } catch (err) {
    return recordFailure(ctx, req, err, 'engine');
  }
  if (!decision.allowed) {
    if (decision.reason === BlockReason.ToolNotInScope) return scopeMismatch(ctx, req);
    return recordFailure(ctx, req, refusal(req, decision.reason), 'engine');
  }
  const { tool } = decision;
  // The same input-schema check as the planner's calls: a rejected request schedules no tool call.
  const verdict = checkToolArgs(ctx.snapshot, requireEnabledTool(ctx.snapshot, tool.toolCode), req.args);
  if (!verdict.ok) return recordFailure(ctx, req, toolArgsRejected(tool.toolCode, verdict), 'engine');
  const call = {
    toolCode: tool.toolCode,
    args: req.args,
    callIndex: 0,
    idempotencyKey: `${ctx.input.turn.turnId}/direct-tool`,
  };
  return { ...scope.output(), directToolCall: { call, tool } };
}
