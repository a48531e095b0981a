import type { TurnActivities } from '../core/turn/activities';
import type { ActivityDeps } from './deps';
import { createMcpActivities } from './mcp';
import { createPipelineActivities } from './pipeline';
import { createRecordTurnDecision } from './turn-decision';

/** Every activity of a turn, keyed by activity type: what the worker registers and the in-process runner calls. */
export function createActivities(deps: ActivityDeps): TurnActivities {
  const mcp = createMcpActivities(deps);
  return {
    ...createPipelineActivities(deps),
    McpPrepare: mcp.McpPrepare,
    McpPlan: mcp.McpPlan,
    McpToolCall: mcp.McpToolCall,
    DirectToolCall: mcp.DirectToolCall,
    McpFinalize: mcp.McpFinalize,
    RecordTurnDecision: createRecordTurnDecision(deps),
  };
}

export type { ActivityDeps } from './deps';
