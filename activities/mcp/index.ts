import type {
  DirectToolCallInput,
  McpPlanInput,
  McpPlanOutput,
  McpPrepareOutput,
  McpToolCallInput,
  StepInput,
  StepOutput,
} from '../../core/turn/contracts';
import type { ActivityDeps } from '../deps';
import { stepActivity } from '../step-runtime';
import { directToolCall } from './direct-tool-call';
import { mcpFinalize } from './finalize';
import { mcpPlan } from './plan';
import { mcpPrepare } from './prepare';
import { mcpToolCall } from './tool-call';
import { toolOrchestration } from './tool-orchestration';

export { directToolCall, mcpFinalize, mcpPlan, mcpPrepare, mcpToolCall, toolOrchestration };

export interface McpActivities {
  McpPrepare(input: StepInput): Promise<McpPrepareOutput>;
  McpPlan(input: McpPlanInput): Promise<McpPlanOutput>;
  McpToolCall(input: McpToolCallInput): Promise<StepOutput>;
  DirectToolCall(input: DirectToolCallInput): Promise<StepOutput>;
  McpFinalize(input: StepInput): Promise<StepOutput>;
  /** The direct-tool pipeline step (pass to createPipelineActivities as an override, or use as is). */
  ToolOrchestration(input: StepInput): Promise<StepOutput>;
}

/**
 * The MCP step's activities: each planner unit and each tool call is its own activity, with its
 * own step frame (McpPrepare, McpPlan, McpToolCall, McpFinalize) in the audit trail. Rule audits
 * keep the reference's sources (`McpToolStep PreMcp`, `McpToolStep`, …).
 */
export function createMcpActivities(deps: ActivityDeps): McpActivities {
  return {
    McpPrepare: stepActivity({ name: 'McpPrepare', run: mcpPrepare }, deps),
    McpPlan: stepActivity({ name: 'McpPlan', run: mcpPlan }, deps),
    McpToolCall: stepActivity({ name: 'McpToolCall', run: mcpToolCall }, deps),
    DirectToolCall: stepActivity({ name: 'DirectToolCall', run: directToolCall }, deps),
    McpFinalize: stepActivity({ name: 'McpFinalize', run: mcpFinalize }, deps),
    ToolOrchestration: stepActivity({ name: 'ToolOrchestration', run: toolOrchestration }, deps),
  };
}
