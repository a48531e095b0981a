import { CONFIG_TABLE_NAMES } from './rows';
import type { ConfigRows } from './types';

/** What a parked turn waits on: a person's approval of its call, or an operator's decision on a held call (#22). */
export type ParkedWait = 'approval' | 'held';

/** A turn parked on a tool call, as the audit trail shows it (db/repositories/parked-turns.ts reads it). */
export interface ParkedTurn {
  conversationId: string;
  toolCode: string;
  waitsOn: ParkedWait;
}

/** What a config change does to a tool turns are parked on. */
export type ToolChange = 'removes' | 'disables' | 'changes';

/** The turns parked on one tool that a change removes, disables or changes. */
export interface ParkedOnChangedTool {
  toolCode: string;
  waitsOn: ParkedWait;
  change: ToolChange;
  conversationIds: string[];
}

/** A row a config diff names: its table (ce_mcp_tool, …) and primary key, as `config diff` prints it. */
export interface ChangedRow {
  table: string;
  id: string;
}

/** The tables a tool's definition spans, each keyed by the tool's tool_id. */
const TOOL_TABLES = new Set([
  CONFIG_TABLE_NAMES.mcpTools,
  CONFIG_TABLE_NAMES.mcpDbTools,
  CONFIG_TABLE_NAMES.mcpHttpTools,
]);

/** The tool codes whose rows `changes` touch, under either config: what a change may do to parked turns. */
function touchedToolCodes(inForce: ConfigRows, next: ConfigRows, changes: readonly ChangedRow[]): Set<string> {
  const ids = new Set(changes.filter((c) => TOOL_TABLES.has(c.table)).map((c) => c.id));
  const codes = [...inForce.mcpTools, ...next.mcpTools].filter((t) => ids.has(String(t.toolId))).map((t) => t.toolCode);
  return new Set(codes);
}

/** Whether `changes` touch any tool's rows: when they don't, no parked turn needs looking for. */
export function changesTouchTools(changes: readonly ChangedRow[]): boolean {
  return changes.some((c) => TOOL_TABLES.has(c.table));
}

/**
 * What the change does to `toolCode`, a tool of the config in force: gone from the next config (deleted, or its
 * tool_code renamed), disabled there, or any of its rows changed; null when untouched. A tool the config in force
 * does not have (removed by an earlier change) is not this change's doing.
 */
function toolChange(inForce: ConfigRows, next: ConfigRows, touched: Set<string>, toolCode: string): ToolChange | null {
  const before = inForce.mcpTools.find((t) => t.toolCode === toolCode);
  if (!before || !touched.has(toolCode)) return null;
  const after = next.mcpTools.find((t) => t.toolCode === toolCode);
  if (!after) return 'removes';
  return before.enabled && !after.enabled ? 'disables' : 'changes';
}

/**
 * The turns parked on a tool (waiting for an approval, or held for an operator) that the change from `inForce` to
 * `next` removes, disables or changes, grouped by tool and wait. A turn keeps the config version it started on, so
 * when its call is decided it runs the tool as that version has it, not as `next` does: approving a call to a tool
 * the change removes still runs it. Listed so the author decides or rejects them first, knowingly.
 */
export function parkedOnChangedTools(
  inForce: ConfigRows,
  next: ConfigRows,
  changes: readonly ChangedRow[],
  parked: readonly ParkedTurn[]
): ParkedOnChangedTool[] {
  const touched = touchedToolCodes(inForce, next, changes);
  const groups = new Map<string, ParkedOnChangedTool>();
  for (const turn of parked) {
    const change = toolChange(inForce, next, touched, turn.toolCode);
    if (!change) continue;
    const key = `${turn.waitsOn}\u0000${turn.toolCode}`;
    const group = groups.get(key) ?? { toolCode: turn.toolCode, waitsOn: turn.waitsOn, change, conversationIds: [] };
    group.conversationIds.push(turn.conversationId);
    groups.set(key, group);
  }
  return [...groups.values()];
}
