import { readSetting } from '../../core/config/setting';
import { McpLoopSettings } from '../../core/config/settings/mcp';
import { McpAudit } from '../../core/mcp/constants';
import { clearMcpTurnContext, writeLoopFlags } from '../../core/mcp/context';
import { markClarificationResolved } from '../../core/mcp/semantic-context';
import { checkMcpSkips } from '../../core/mcp/skips';
import { nextToolGuardConfig, toolDescriptor, toolsInScope } from '../../core/mcp/tools';
import type { McpLoopPlan, McpPrepareOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';
import { emit, mcpRules } from './support';

function skipped(ctx: StepContext, reason: string): McpPrepareOutput {
  const plan: McpLoopPlan = {
    run: false,
    skipReason: reason,
    maxLoops: 0,
    tools: [],
    nextToolGuard: { enabled: false, failClosed: false, allowedNextByCurrentTool: {} },
  };
  return { ...ctx.scope.output(), plan };
}

/**
 * McpPrepare: PRE_AGENT_MCP rules (always, even when MCP is then skipped), the skip checks, and —
 * when the planner will run — the stale-answer guard (MCP_CONTEXT_CLEARED) and the loop plan:
 * tools in scope with their side-effect/approval/retry settings, the loop limit and the
 * next-tool guard config, all read from the turn's pinned config snapshot.
 */
export async function mcpPrepare(ctx: StepContext): Promise<McpPrepareOutput> {
  const { scope, snapshot } = ctx;
  await mcpRules(ctx, 'PRE_AGENT_MCP', 'McpToolStep PreMcp');
  if (scope.stop) return skipped(ctx, 'SHORT_CIRCUIT');
  const rows = toolsInScope(snapshot, scope.session.intent, scope.session.state);
  const skip = checkMcpSkips(scope.session, rows.length);
  emit(scope, skip.audits);
  if (skip.skipReason !== null) return skipped(ctx, skip.skipReason);
  clearMcpTurnContext(scope.session);
  if (skip.clarificationReply) markClarificationResolved(scope.session);
  scope.audit(McpAudit.ContextCleared, {});
  const maxLoops = readSetting(snapshot, McpLoopSettings.maxLoops);
  writeLoopFlags(scope.session, false, false, maxLoops);
  const plan: McpLoopPlan = {
    run: true,
    skipReason: null,
    maxLoops,
    tools: rows.map((row) => toolDescriptor(row, snapshot)),
    nextToolGuard: nextToolGuardConfig(snapshot),
  };
  return { ...scope.output(), plan };
}
