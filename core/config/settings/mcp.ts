import { defineSetting, type SettingDefinition } from '../setting';

/** Tunables of the MCP planner loop and tools. */
export const McpLoopSettings = {
  maxLoops: defineSetting({
    configType: 'McpToolStep',
    configKey: 'MCP_TOOL_MAX_LOOPS',
    kind: 'int',
    min: 1,
    default: 5,
    description: 'Planner iterations per turn before toolExecutionAbrupted is set.',
  }),
};

export const mcpSettings: readonly SettingDefinition[] = [...Object.values(McpLoopSettings)];
