import { McpAudit } from '../../core/mcp/constants';
import { loopLimitOf, markAbruptedIfUnanswered, plannerRan } from '../../core/mcp/context';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';
import { mcpRules } from './support';

/**
 * McpFinalize: a planner that ran without reaching a final answer hit the loop limit
 * (toolExecutionAbrupted, MCP_LOOP_LIMIT_REACHED); then POST_AGENT_MCP rules run — always when
 * the planner ran at least once, also after a guardrail block, a rejection or a tool error.
 */
export async function mcpFinalize(ctx: StepContext): Promise<StepOutput> {
  const { scope } = ctx;
  if (!plannerRan(scope.session)) return scope.output();
  if (markAbruptedIfUnanswered(scope.session)) {
    scope.audit(McpAudit.LoopLimitReached, { limit: loopLimitOf(scope.session), reason: 'MCP_TOOL_MAX_LOOPS' });
  }
  await mcpRules(ctx, 'POST_AGENT_MCP', 'McpToolStep');
  return scope.output();
}
