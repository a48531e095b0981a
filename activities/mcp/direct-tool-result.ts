import type { OrchestrationErrorPayload } from '../../core/audit/payloads';
import type { McpToolRow } from '../../core/config/tool-rows';
import { errorMessage, ErrorType, isEngineError } from '../../core/errors';
import type { Json, JsonObject } from '../../core/json';
import { McpAudit } from '../../core/mcp/constants';
import { DirectErrorSource } from '../../core/mcp/direct-failure';
import { isToolArgsRejection } from '../../core/mcp/tool-args';
import { mcpContext } from '../../core/mcp/mcp-node';
import { publicToolErrorMessage } from '../../core/mcp/tool-error-text';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/**
 * What the direct tool path (§6.9) records: `tool_result` / `tool_status` in the request's params
 * and `context.mcp.toolExecution`, for the ToolOrchestration step (request, policy verdict) and
 * the DirectToolCall activity (the tool's result or final failure) alike.
 */
export interface DirectRequest {
  toolCode: string;
  toolGroup: string | null;
  args: JsonObject;
}

export type DirectStatus = 'SUCCESS' | 'ERROR' | 'SKIPPED_SCOPE_MISMATCH';
const OUTCOME: Record<DirectStatus, string> = {
  SUCCESS: 'SUCCESS',
  ERROR: 'ERROR',
  SKIPPED_SCOPE_MISMATCH: 'SCOPE_MISMATCH',
};

export function writeExecution(ctx: StepContext, req: DirectRequest, status: DirectStatus, extra: JsonObject): void {
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

/**
 * A failure is a result (status ERROR), not a crash of the turn. Arguments refused by the tool's
 * input schema are also audited as TOOL_ARGS_REJECTED, as on the planner path. `by`: who wrote the
 * message. The engine's refusals (the policy, the input schema) are said as written; a failure of
 * the tool itself (or an unexpected error anywhere) may quote the database driver or the network, so
 * the params and the context, which reach the caller, say only what failed; the audit row keeps it.
 */
export function recordFailure(ctx: StepContext, req: DirectRequest, err: unknown, by: 'engine' | 'tool'): StepOutput {
  const message = errorMessage(err);
  const errorType = isEngineError(err) ? err.type : ErrorType.ToolExecutionFailed;
  if (isToolArgsRejection(err)) {
    const problems = (err.details?.['problems'] ?? []) as Json;
    ctx.scope.audit(McpAudit.ToolArgsRejected, {
      tool_code: req.toolCode,
      tool_group: req.toolGroup,
      args: req.args,
      problems,
    });
  }
  const ours = by === 'engine' && isEngineError(err);
  const publicMessage = ours ? message : publicToolErrorMessage(req.toolCode, errorType, message);
  ctx.scope.session.inputParams['tool_result'] = {
    status: 'ERROR',
    tool_code: req.toolCode,
    tool_group: req.toolGroup,
    error: publicMessage,
  };
  // The planner loop reads it: a call the tool failed is not sent again this turn (core/mcp/direct-failure.ts).
  const errorSource = by === 'tool' ? DirectErrorSource.Tool : DirectErrorSource.Engine;
  writeExecution(ctx, req, 'ERROR', { errorMessage: publicMessage, errorType, errorSource });
  ctx.scope.audit(McpAudit.OrchestrationError, {
    tool_code: req.toolCode,
    tool_group: req.toolGroup,
    args: req.args,
    error: message,
    errorType,
  } satisfies OrchestrationErrorPayload);
  return ctx.scope.output();
}

export function toolMeta(row: McpToolRow): JsonObject {
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
