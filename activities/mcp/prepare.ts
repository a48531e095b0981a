import { readSetting } from '../../core/config/setting';
import { McpLoopSettings } from '../../core/config/settings/mcp';
import { McpAudit } from '../../core/mcp/constants';
import { clearMcpTurnContext, earlierPlannerOutput, writeLoopFlags } from '../../core/mcp/context';
import { markClarificationResolved, semanticClarificationPending } from '../../core/mcp/semantic-context';
import { checkMcpSkips } from '../../core/mcp/skips';
import { nextToolGuardConfig, toolDescriptor, toolsInScope } from '../../core/mcp/tools';
import type { Session } from '../../core/session';
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
 * Clears an earlier turn's planner output before the skip checks, so a turn whose planner is skipped
 * cannot answer with it (seed "stale move ID bug": "Second request returns previous move result").
 * An open semantic clarification is kept whole: it is the question the next reply answers, and the
 * skip checks resume the chain from it (§6.1 step 2). Returns what was cleared.
 */
function clearEarlierPlannerOutput(session: Session): string[] {
  if (semanticClarificationPending(session)) return [];
  const stale = earlierPlannerOutput(session);
  if (stale.length > 0) clearMcpTurnContext(session);
  return stale;
}

/**
 * McpPrepare: PRE_AGENT_MCP rules (always, even when MCP is then skipped), the stale-answer guard
 * (MCP_CONTEXT_CLEARED: an earlier turn's planner output goes before the skip checks, or before the
 * turn ends when a SHORT_CIRCUIT rule answered it; when the planner will run the per-turn context is
 * cleared as §6.1 step 3 says), the skip checks, and the loop plan: tools in scope with their
 * side-effect/approval/retry settings, the loop limit and the next-tool guard config, all read from
 * the turn's pinned config snapshot.
 */
export async function mcpPrepare(ctx: StepContext): Promise<McpPrepareOutput> {
  const { scope, snapshot } = ctx;
  await mcpRules(ctx, 'PRE_AGENT_MCP', 'McpToolStep PreMcp');
  const stale = clearEarlierPlannerOutput(scope.session);
  if (scope.stop) {
    // The rule answered without the planner (never with an earlier turn's output: short-circuit.ts); the turn is
    // committed as it stands, so the earlier answer goes too.
    if (stale.length > 0) scope.audit(McpAudit.ContextCleared, { reason: 'SHORT_CIRCUIT', cleared: stale });
    return skipped(ctx, 'SHORT_CIRCUIT');
  }
  const rows = toolsInScope(snapshot, scope.session.intent, scope.session.state);
  const skip = checkMcpSkips(scope.session, rows.length);
  if (skip.skipReason !== null) {
    if (stale.length > 0) {
      scope.audit(McpAudit.ContextCleared, { reason: 'PLANNER_SKIPPED', skipReason: skip.skipReason, cleared: stale });
    }
    emit(scope, skip.audits);
    return skipped(ctx, skip.skipReason);
  }
  emit(scope, skip.audits);
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
