import type {
  DirectToolCallInput,
  McpPlanInput,
  McpPlanOutput,
  McpPrepareOutput,
  McpToolCallInput,
  StepInput,
  StepReply,
} from '../../core/turn/contracts';
import type { ActivityDeps } from '../deps';
import { stepActivity } from '../step-runtime';
import { directToolCall } from './direct-tool-call';
import { mcpFinalize } from './finalize';
import { mcpPlan } from './plan';
import { mcpPrepare } from './prepare';
import { mcpToolCall } from './tool-call';
import { mcpToolHold } from './tool-hold';
import { toolOrchestration } from './tool-orchestration';

export { directToolCall, mcpFinalize, mcpPlan, mcpPrepare, mcpToolCall, mcpToolHold, toolOrchestration };

export interface McpActivities {
  McpPrepare(input: StepInput): Promise<StepReply<McpPrepareOutput>>;
  McpPlan(input: McpPlanInput): Promise<StepReply<McpPlanOutput>>;
  McpToolCall(input: McpToolCallInput): Promise<StepReply>;
  McpToolHold(input: StepInput): Promise<StepReply>;
  DirectToolCall(input: DirectToolCallInput): Promise<StepReply>;
  McpFinalize(input: StepInput): Promise<StepReply>;
}

/**
 * The MCP step's activities: each planner unit and each tool call is its own activity, with its
 * own step frame (McpPrepare, McpPlan, McpToolCall, McpFinalize) in the audit trail. Rule audits
 * keep the reference's sources (`McpToolStep PreMcp`, `McpToolStep`, …). ToolOrchestration is a
 * pipeline step (activities/pipeline), registered once, there.
 */
export function createMcpActivities(deps: ActivityDeps): McpActivities {
  return {
    McpPrepare: stepActivity({ name: 'McpPrepare', run: mcpPrepare }, deps),
    McpPlan: stepActivity({ name: 'McpPlan', run: mcpPlan }, deps),
    McpToolCall: stepActivity({ name: 'McpToolCall', run: mcpToolCall, failureEndsTurn: false }, deps),
    McpToolHold: stepActivity({ name: 'McpToolHold', run: mcpToolHold }, deps),
    DirectToolCall: stepActivity({ name: 'DirectToolCall', run: directToolCall, failureEndsTurn: false }, deps),
    McpFinalize: stepActivity({ name: 'McpFinalize', run: mcpFinalize }, deps),
  };
}
