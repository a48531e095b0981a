import { toolCodeKey } from '../../core/config/vocabulary';
import { EngineError, ErrorType, errorMessage, isEngineError } from '../../core/errors';
import type { Json } from '../../core/json';
import { McpAudit, SemanticTool } from '../../core/mcp/constants';
import { readObservations, setParam } from '../../core/mcp/context';
import { currentToolOf } from '../../core/mcp/guard';
import {
  applyArgsRejected,
  applySemanticSignal,
  applyToolResult,
  toolCallAuditPayload,
} from '../../core/mcp/plan-apply';
import { checkToolArgs } from '../../core/mcp/tool-args';
import { requireEnabledTool, normalizeToolGroup, sideEffectOf } from '../../core/mcp/tools';
import type { McpToolCallInput, StepOutput } from '../../core/turn/contracts';
import { publishVerbose } from '../pipeline/support';
import { throwIfCancelled } from '../runtime/activity-context';
import type { StepContext } from '../step-runtime';
import { executeTool, verifiedToolResult } from '../tools/dispatch';
import { emit, mcpRules, toolHandlerContext } from './support';

/**
 * Errors from tool code that are not engine errors (a consumer handler's `throw new Error`): TOOL_EXECUTION_FAILED,
 * retryable. Not for an attempt Temporal cancelled (throwIfCancelled first): its cut call is no failure of the tool.
 */
export function asToolError(err: unknown, toolCode: string): unknown {
  if (isEngineError(err) || !(err instanceof Error)) return err;
  return new EngineError(ErrorType.ToolExecutionFailed, err.message, {
    cause: err,
    details: { toolCode, errorClass: err.name },
  });
}

/**
 * McpToolCall: exactly one tool execution for one CALL_TOOL the driver allowed. MCP_TOOL_CALL is
 * audited before the tool runs (and survives a failure), once the arguments have matched the
 * tool's input schema — arguments that do not are answered with an observation for the planner
 * and audited as TOOL_ARGS_REJECTED, and the tool does not run; success appends the observation and may
 * end the loop (semantic clarification / unsupported); failure is thrown as a typed error —
 * retryable or not — and the driver turns a final failure into TOOL_ERROR.
 */
export async function mcpToolCall(ctx: StepContext<McpToolCallInput>): Promise<StepOutput> {
  const { scope, input } = ctx;
  const row = requireEnabledTool(ctx.snapshot, ctx.input.call.toolCode);
  const toolGroup = normalizeToolGroup(row.toolGroup);
  const verdict = checkToolArgs(ctx.snapshot, row, input.call.args);
  if (!verdict.ok && input.verifiedResult === undefined) {
    emit(scope, applyArgsRejected(scope.session, input.call, toolGroup, verdict));
    return scope.output();
  }
  const observations = readObservations(scope.session);
  scope.audit(
    McpAudit.ToolCall,
    toolCallAuditPayload(scope.session, input.call, currentToolOf(observations), observations.length)
  );
  setParam(scope.session, 'mcp_tool_group', toolGroup);
  const handlerCtx = toolHandlerContext(ctx, row.toolCode, toolGroup, input.call);
  const key = sideEffectOf(row) === 'READ_ONLY' ? null : input.call.idempotencyKey;
  let result: Json;
  const progress = { stepName: 'McpToolStep', toolCode: row.toolCode };
  try {
    // #22 markDone: an operator verified what the upstream did; calling it again could apply a write twice.
    result =
      input.verifiedResult !== undefined
        ? verifiedToolResult(handlerCtx, input.verifiedResult)
        : await executeTool(handlerCtx, key);
  } catch (err) {
    // Cancelled by Temporal, the call did not fail: the attempt ends cancelled, with no progress event saying it did.
    throwIfCancelled();
    const metadata = { tool_code: row.toolCode, error: errorMessage(err) };
    publishVerbose(ctx, { ...progress, determinant: 'MCP_TOOL_CALL', error: true, metadata });
    throw asToolError(err, row.toolCode);
  }
  emit(scope, applyToolResult(scope.session, input.call, toolGroup, result));
  const metadata = { tool_code: row.toolCode, tool_group: toolGroup };
  publishVerbose(ctx, { ...progress, determinant: 'MCP_TOOL_RESULT', metadata });
  if (toolCodeKey(row.toolCode) === SemanticTool.interpret) {
    await mcpRules(ctx, 'POST_SEMANTIC_INTERPRET', 'McpToolStep PostSemanticInterpret');
  }
  emit(scope, applySemanticSignal(scope.session, input.call, toolGroup, result));
  return scope.output();
}
