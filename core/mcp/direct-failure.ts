import { toolCodeKey } from '../config/vocabulary';
import { ErrorType } from '../errors';
import { canonicalJson, isJsonObject, type Json, type JsonObject } from '../json';
import type { Session } from '../session';
import { readMcp } from './mcp-node';

/**
 * Who failed a request's direct tool call (§6.9), as `context.mcp.toolExecution.errorSource` says: the tool itself
 * (it ran and failed for good: its upstream, its handler, its retries or an operator's skip) or the engine, which
 * refused to run it (the tool policy, the input schema). Only the first is a call the planner must not repeat: a
 * tool refused as a direct request may still be the planner's to call.
 */
export const DirectErrorSource = { Tool: 'TOOL', Engine: 'ENGINE' } as const;
export type DirectErrorSourceName = (typeof DirectErrorSource)[keyof typeof DirectErrorSource];

/** Why the planner loop refused a call (TURN_DECISION reason, MCP_TOOL_REPEAT_REFUSED reason). */
export const DIRECT_CALL_FAILED_REASON = 'DIRECT_TOOL_CALL_FAILED';

/** A call as the planner loop compares calls: the tool code (case-insensitive) and the canonical arguments. */
export function toolCallSignature(toolCode: string, args: Json): string {
  return `${toolCodeKey(toolCode)}|${canonicalJson(args)}`;
}

/** This turn's direct tool call that its tool failed, as the planner loop must not send it again. */
export interface FailedDirectCall {
  toolCode: string;
  toolGroup: string | null;
  args: JsonObject;
  signature: string;
  errorType: string;
  /** The context's words for the failure (core/mcp/tool-error-text.ts), never the upstream's own. */
  errorMessage: string;
}

/**
 * The direct call that failed this turn, read from the session ToolOrchestration and DirectToolCall left: the tool's
 * ERROR in `context.mcp.toolExecution` and the request as ToolOrchestration normalized it into `tool_request`. Null
 * when no direct call ran, it succeeded, or the engine refused it. Read before the MCP step's PRE_AGENT_MCP rules run,
 * so a rule that rewrites either cannot unblock (or block) a call.
 */
export function failedDirectCall(session: Session): FailedDirectCall | null {
  const execution = readMcp(session)?.['toolExecution'];
  const request = session.inputParams['tool_request'];
  if (!isJsonObject(execution) || !isJsonObject(request)) return null;
  if (execution['status'] !== 'ERROR' || execution['errorSource'] !== DirectErrorSource.Tool) return null;
  const { toolCode, toolGroup, errorType, errorMessage } = execution;
  const args = request['args'];
  if (typeof toolCode !== 'string' || request['tool_code'] !== toolCode || !isJsonObject(args)) return null;
  return {
    toolCode,
    toolGroup: typeof toolGroup === 'string' ? toolGroup : null,
    args,
    signature: toolCallSignature(toolCode, args),
    errorType: typeof errorType === 'string' ? errorType : ErrorType.ToolExecutionFailed,
    errorMessage: typeof errorMessage === 'string' ? errorMessage : `Tool ${toolCode} failed.`,
  };
}
