import type { McpToolRow } from '../../core/config/types';
import { EngineError, ErrorType, errorMessage, isEngineError } from '../../core/errors';
import { isJsonObject, tryParseJson, type Json, type JsonObject } from '../../core/json';
import { McpAudit } from '../../core/mcp/constants';
import { mcpContext } from '../../core/mcp/mcp-node';
import { findToolRow, normalizeToolGroup, sideEffectOf, toolsInScope } from '../../core/mcp/tools';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';
import { toolDepsOf } from '../tools/deps';
import { executeTool } from '../tools/dispatch';
import { mcpRules } from './support';

/**
 * ToolOrchestration, the direct tool path (§6.9): a request carrying `tool_request` runs exactly
 * one tool, records `tool_result` / `tool_status` and `context.mcp.toolExecution`, and on success
 * runs POST_TOOL_EXECUTION rules. The request is read from this request's own params only, so it
 * is never replayed on a later turn (D10). Failures become results (status ERROR), not crashes.
 */
interface ToolRequest {
  toolCode: string;
  toolGroup: string | null;
  args: JsonObject;
}

function parseToolRequest(raw: Json | undefined): ToolRequest | null {
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

function metaOf(row: McpToolRow): JsonObject {
  return {
    tool_id: row.toolId,
    tool_code: row.toolCode,
    tool_group: row.toolGroup,
    intent_code: row.intentCode,
    state_code: row.stateCode,
    enabled: row.enabled,
    description: row.description,
    created_at: row.createdAt,
  };
}

type DirectStatus = 'SUCCESS' | 'ERROR' | 'SKIPPED_SCOPE_MISMATCH';
const OUTCOME: Record<DirectStatus, string> = {
  SUCCESS: 'SUCCESS',
  ERROR: 'ERROR',
  SKIPPED_SCOPE_MISMATCH: 'SCOPE_MISMATCH',
};

function writeExecution(ctx: StepContext, req: ToolRequest, status: DirectStatus, extra: JsonObject): void {
  const session = ctx.scope.session;
  mcpContext(session)['toolExecution'] = {
    phase: 'POST_TOOL_EXECUTION',
    status,
    outcome: OUTCOME[status],
    finished: true,
    error: status === 'ERROR',
    scopeMismatch: status === 'SKIPPED_SCOPE_MISMATCH',
    toolExecuted: status === 'SUCCESS',
    toolCode: req.toolCode,
    toolGroup: req.toolGroup,
    ...extra,
  };
  session.inputParams['tool_status'] = status;
}

function fail(ctx: StepContext, req: ToolRequest, err: unknown): StepOutput {
  const message = errorMessage(err);
  const errorType = isEngineError(err) ? err.type : ErrorType.ToolExecutionFailed;
  ctx.scope.session.inputParams['tool_result'] = {
    status: 'ERROR',
    tool_code: req.toolCode,
    tool_group: req.toolGroup,
    error: message,
  };
  writeExecution(ctx, req, 'ERROR', { errorMessage: message, errorType });
  ctx.scope.audit(McpAudit.OrchestrationError, {
    tool_code: req.toolCode,
    tool_group: req.toolGroup,
    args: req.args,
    error: message,
    errorType,
  });
  return ctx.scope.output();
}

function resolve(ctx: StepContext, req: ToolRequest): McpToolRow | 'SCOPE_MISMATCH' {
  if (req.toolCode === '') throw new EngineError(ErrorType.ToolArgsInvalid, 'tool_request.tool_code is required');
  const row = findToolRow(ctx.snapshot, req.toolCode);
  if (!row || !row.enabled)
    throw new EngineError(ErrorType.ToolNotAllowed, `Tool ${req.toolCode} is not an enabled ce_mcp_tool`);
  const { intent, state } = ctx.scope.session;
  const inScope = toolsInScope(ctx.snapshot, intent, state).some((t) => t.toolId === row.toolId);
  if (!inScope) return 'SCOPE_MISMATCH';
  if (row.requiresApproval) {
    throw new EngineError(
      ErrorType.ToolNotAllowed,
      `Tool ${row.toolCode} requires human approval and cannot run as a direct tool_request`
    );
  }
  return row;
}

async function execute(ctx: StepContext, req: ToolRequest, row: McpToolRow): Promise<void> {
  const { scope } = ctx;
  const group = req.toolGroup ?? normalizeToolGroup(row.toolGroup);
  const call = {
    toolCode: row.toolCode,
    args: req.args,
    callIndex: 0,
    idempotencyKey: `${ctx.input.turn.turnId}/direct-tool`,
  };
  const handlerCtx = {
    toolCode: row.toolCode,
    toolGroup: group,
    args: req.args,
    call,
    session: scope.session,
    snapshot: ctx.snapshot,
    deps: ctx.deps,
    tools: toolDepsOf(ctx.deps),
    audit: (stage: string, payload: JsonObject) => scope.audit(stage, payload),
  };
  const result = await executeTool(handlerCtx, sideEffectOf(row) === 'READ_ONLY' ? null : call.idempotencyKey);
  const meta = metaOf(row);
  scope.session.inputParams['tool_result'] = {
    status: 'SUCCESS',
    tool_code: row.toolCode,
    tool_group: group,
    result,
    _meta: meta,
  };
  writeExecution(ctx, { ...req, toolGroup: group }, 'SUCCESS', { result, meta });
  scope.audit(McpAudit.OrchestrationResult, { tool_code: row.toolCode, tool_group: group, status: 'SUCCESS', result });
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
  scope.audit(McpAudit.OrchestrationRequest, { tool_code: req.toolCode, tool_group: req.toolGroup, args: req.args });
  try {
    const row = resolve(ctx, req);
    if (row === 'SCOPE_MISMATCH') {
      writeExecution(ctx, req, 'SKIPPED_SCOPE_MISMATCH', {
        errorMessage: `Tool ${req.toolCode} is not enabled for ${scope.session.intent}/${scope.session.state}`,
      });
      scope.audit(McpAudit.OrchestrationResult, {
        tool_code: req.toolCode,
        tool_group: req.toolGroup,
        status: 'SKIPPED_SCOPE_MISMATCH',
      });
      return scope.output();
    }
    await execute(ctx, req, row);
  } catch (err) {
    return fail(ctx, req, err);
  }
  // Outside the try: a rule problem is a config error of the turn, not a failure of the tool.
  await mcpRules(ctx, 'POST_TOOL_EXECUTION', 'ToolOrchestrationStep PostTool', 'PIPELINE_STEP');
  return scope.output();
}
