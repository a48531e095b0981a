import type { OrchestrationResultPayload } from '../../core/audit/payloads';
import { EngineError, ErrorType } from '../../core/errors';
import { McpAudit } from '../../core/mcp/constants';
import { findToolRow } from '../../core/mcp/tools';
import type { DirectToolCallInput, StepOutput } from '../../core/turn/contracts';
import { throwIfCancelled } from '../runtime/activity-context';
import { currentAttempt } from '../runtime/attempt';
import { isRetryableFailure } from '../runtime/failure';
import type { StepContext } from '../step-runtime';
import { executeTool, verifiedToolResult } from '../tools/dispatch';
import { recordFailure, toolMeta, writeExecution, type DirectRequest } from './direct-tool-result';
import { mcpRules, toolHandlerContext } from './support';
import { asToolError } from './tool-call';

/**
 * DirectToolCall: runs the tool of a request's `tool_request` once ToolOrchestration has let it
 * through the tool policy (D21). It is an activity of its own so that it retries by the tool's
 * retry policy (side-effect class, the row's attempts and timeouts), never the pipeline step's. A
 * retryable failure is thrown while attempts remain; the last attempt (or a non-retryable error)
 * records the failure as the tool's result, so the turn still answers — unless the tool holds for
 * an operator (#22, `holdOnExhausted`): then the last attempt throws too, and the workflow holds
 * the turn; `verifiedResult` (markDone) records what the operator verified. An attempt Temporal cancelled ends
 * cancelled, never with the cut call as the tool's failure. With `failure` set — the
 * executor's report that the activity itself failed for good — it only records that.
 */
export async function directToolCall(ctx: StepContext<DirectToolCallInput>): Promise<StepOutput> {
  const { input, scope } = ctx;
  const req: DirectRequest = { toolCode: input.call.toolCode, toolGroup: input.tool.toolGroup, args: input.call.args };
  if (input.failure) return recordFailure(ctx, req, new EngineError(input.failure.type, input.failure.message), 'tool');
  const row = findToolRow(ctx.snapshot, input.call.toolCode);
  if (!row || !row.enabled) {
    const notEnabled = new EngineError(ErrorType.ToolNotAllowed, `Tool ${req.toolCode} is not enabled`);
    return recordFailure(ctx, req, notEnabled, 'engine');
  }
  let result;
  const handlerCtx = toolHandlerContext(ctx, row.toolCode, input.tool.toolGroup, input.call);
  try {
    // #22 markDone: an operator verified what the upstream did; calling it again could apply a write twice.
    result =
      input.verifiedResult !== undefined
        ? verifiedToolResult(handlerCtx, input.verifiedResult)
        : await executeTool(handlerCtx, input.tool.sideEffect === 'READ_ONLY' ? null : input.call.idempotencyKey);
  } catch (err) {
    // Cancelled by Temporal (the turn cancelled, the worker stopping), the call did not fail: never its recorded result.
    throwIfCancelled();
    const failure = asToolError(err, row.toolCode);
    if (isRetryableFailure(failure) && (input.holdOnExhausted === true || currentAttempt() < input.maxAttempts))
      throw failure;
    return recordFailure(ctx, req, failure, 'tool');
  }
  const meta = toolMeta(row);
  scope.session.inputParams['tool_result'] = {
    status: 'SUCCESS',
    tool_code: row.toolCode,
    tool_group: req.toolGroup,
    result,
    _meta: meta,
  };
  writeExecution(ctx, req, 'SUCCESS', { result, meta });
  scope.audit(McpAudit.OrchestrationResult, {
    tool_code: row.toolCode,
    tool_group: req.toolGroup,
    status: 'SUCCESS',
    result,
  } satisfies OrchestrationResultPayload);
  // A rule problem is a config error of the turn, not a failure of the tool.
  await mcpRules(ctx, 'POST_TOOL_EXECUTION', 'ToolOrchestrationStep PostTool', 'PIPELINE_STEP');
  return scope.output();
}
