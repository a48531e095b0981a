import type { McpToolRow } from '../config/tool-rows';
import { normalizeToolGroup, toolCodeKey } from '../config/vocabulary';
import type { McpToolDescriptor, NextToolGuardConfig } from '../turn/contracts';
import { ARGS_REJECTED_STATUS, BlockReason } from './constants';
import type { McpObservation } from './context';
import { checkNextTool, currentToolOf } from './guard';

/**
 * The one tool-call policy (D21), for a planner's CALL_TOOL and for a request's direct
 * `tool_request` alike: the tool must be in scope for the current intent and state, pass the
 * semantic sequence and the configured next-tool guardrail, and — for a direct request — be
 * allowed to be called directly. The caller then honours the verdict's approval requirement and
 * runs the tool through the tool activity's own retry policy (by side-effect class).
 */
export type ToolCallOrigin = 'PLANNER' | 'DIRECT';

export interface ToolCallCheck {
  origin: ToolCallOrigin;
  toolCode: string;
  /** Tools in scope for the current intent and state. */
  tools: readonly McpToolDescriptor[];
  observations: readonly McpObservation[];
  nextToolGuard: NextToolGuardConfig;
}

export type ToolCallDecision =
  | { allowed: true; tool: McpToolDescriptor; needsApproval: boolean }
  | { allowed: false; reason: string; currentTool: string };

export function decideToolCall(check: ToolCallCheck): ToolCallDecision {
  const verdict = checkNextTool({
    toolCode: check.toolCode,
    toolsInScope: check.tools.map((t) => t.toolCode),
    // A call refused for its arguments never ran, so it does not move the tool sequence on.
    observations: check.observations.filter((o) => o.status !== ARGS_REJECTED_STATUS),
    config: check.nextToolGuard,
  });
  if (!verdict.allowed) return verdict;
  const code = toolCodeKey(check.toolCode);
  const tool = check.tools.find((t) => toolCodeKey(t.toolCode) === code);
  // The guard matched it in scope by the same key; a miss here is a broken invariant, refused, not a crash.
  if (!tool)
    return { allowed: false, reason: BlockReason.ToolNotInScope, currentTool: currentToolOf(check.observations) };
  if (check.origin === 'DIRECT') {
    const currentTool = '__REQUEST__';
    if (!tool.directCallable) return { allowed: false, reason: BlockReason.DirectRequestNotAllowed, currentTool };
    // A request cannot wait for a human: a tool that needs approval is asked for through the planner.
    if (tool.requiresApproval) return { allowed: false, reason: BlockReason.DirectRequestNeedsApproval, currentTool };
  }
  return { allowed: true, tool, needsApproval: tool.requiresApproval };
}

/**
 * Whether a request may call the tool directly: the row's allow_direct_request, else by class.
 * Read-only HTTP lookups may be; DB tools (postgres.query runs SQL the caller wrote, the semantic
 * chain and ce_mcp_db_tool rows) and writes may not unless their row says so.
 */
export function directCallable(row: Pick<McpToolRow, 'allowDirectRequest' | 'toolGroup' | 'sideEffect'>): boolean {
  if (typeof row.allowDirectRequest === 'boolean') return row.allowDirectRequest;
  const readOnly = row.sideEffect.trim().toUpperCase() === 'READ_ONLY';
  return readOnly && normalizeToolGroup(row.toolGroup) === 'HTTP_API';
}
