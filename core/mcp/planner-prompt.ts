import { toolCodeKey } from '../config/vocabulary';
import { pickMostSpecific } from '../config/scope';
import { readSetting } from '../config/setting';
import { McpPlannerSettings } from '../config/settings/mcp';
import type { ConfigSnapshot } from '../config/types';
import type { McpPlannerRow, McpToolRow } from '../config/tool-rows';
import type { Json } from '../json';
import { toolInputSchema } from './tool-input-schema';

/**
 * Which prompts the planner uses (§6.2, D11): the most specific enabled ce_mcp_planner row —
 * (intent, state) > (intent, ANY) > (ANY, state) > (ANY, ANY), ties to the higher planner_id —
 * else the legacy ce_config McpPlanner prompts, else the built-in ones.
 */
export interface PlannerPrompt {
  systemPrompt: string;
  userPrompt: string;
  /** Audited as `source` in MCP_PLAN_LLM_INPUT. */
  source: string;
}

export function selectPlannerPrompt(snapshot: ConfigSnapshot, intent: string, state: string): PlannerPrompt {
  const rows = snapshot.rows.mcpPlanners.filter((r) => r.enabled);
  const row = pickMostSpecific<McpPlannerRow>(rows, intent, state, (a, b) => b.plannerId - a.plannerId);
  if (row) {
    return {
      systemPrompt: row.systemPrompt,
      userPrompt: row.userPrompt,
      source: `ce_mcp_planner(planner_id=${row.plannerId}, intent_code=${row.intentCode}, state_code=${row.stateCode})`,
    };
  }
  return {
    systemPrompt: readSetting(snapshot, McpPlannerSettings.systemPrompt),
    userPrompt: readSetting(snapshot, McpPlannerSettings.userPrompt),
    source: 'ce_config(SYSTEM_PROMPT,USER_PROMPT)',
  };
}

const TOOL_CODE_IN_BACKTICKS = /`([A-Za-z0-9_.-]+)`/g;

/** Tool codes (containing a dot) that the prompts name in backticks, lower-cased. */
export function toolCodesInPrompt(...prompts: string[]): Set<string> {
  const codes = new Set<string>();
  for (const prompt of prompts) {
    for (const m of prompt.matchAll(TOOL_CODE_IN_BACKTICKS)) {
      const code = (m[1] ?? '').toLowerCase();
      if (code.includes('.')) codes.add(code);
    }
  }
  return codes;
}

export interface PlannerToolView {
  tool_code: string;
  tool_group: string;
  description: string | null;
  /** The JSON Schema the call's args must match (issue #21); other args are rejected. */
  input_schema: Json;
}

/**
 * The tools shown to the planner, each with its input schema: those its prompts name in
 * backticks, or all when none match.
 */
export function plannerTools(
  tools: readonly McpToolRow[],
  prompt: PlannerPrompt,
  snapshot: ConfigSnapshot
): PlannerToolView[] {
  const named = toolCodesInPrompt(prompt.systemPrompt, prompt.userPrompt);
  const filtered = named.size === 0 ? [...tools] : tools.filter((t) => named.has(toolCodeKey(t.toolCode)));
  const shown = filtered.length === 0 ? tools : filtered;
  return shown.map((t) => ({
    tool_code: t.toolCode,
    tool_group: t.toolGroup,
    description: t.description,
    input_schema: toolInputSchema(snapshot, t),
  }));
}
