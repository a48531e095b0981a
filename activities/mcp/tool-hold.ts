import type { StepInput, StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/**
 * McpToolHold (#22): writes the TOOL_HELD row when a turn starts to wait for an operator, and the
 * TOOL_HOLD_RESOLVED row when they decided. The workflow decides both rows (core/mcp/hold.ts) and
 * hands them over as carried audits, so this step changes nothing itself.
 */
export async function mcpToolHold(ctx: StepContext<StepInput>): Promise<StepOutput> {
  return ctx.scope.output();
}
