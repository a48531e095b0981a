import type { StepInput, StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/**
 * McpToolHold (#22): writes the TOOL_HELD row when a turn starts to wait for an operator, and the
 * TOOL_HOLD_RESOLVED row when they decided; and MCP_TOOL_APPROVAL_REQUESTED when a turn parks on an
 * approval (D16). The workflow decides the rows (core/mcp/hold.ts, core/mcp/outcomes.ts) and hands
 * them over as carried audits, so this step changes nothing itself.
 */
export async function mcpToolHold(ctx: StepContext<StepInput>): Promise<StepOutput> {
  return ctx.scope.output();
}
