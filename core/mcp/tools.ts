import { rankByScope } from '../config/scope';
import {
  normalizeToolGroup as canonicalToolGroup,
  oneOf,
  TOOL_RETRIES_EXHAUSTED_POLICIES,
  TOOL_SIDE_EFFECTS,
  toolCodeKey,
} from '../config/vocabulary';
import { readSetting } from '../config/setting';
import { McpGuardrailSettings, McpLoopSettings } from '../config/settings/mcp';
import type { ConfigSnapshot } from '../config/types';
import type { McpToolRow, ToolSideEffect } from '../config/tool-rows';
import { EngineError, ErrorType } from '../errors';
import { isJsonObject } from '../json';
import type { McpToolDescriptor, NextToolGuardConfig } from '../turn/contracts';
import { DEFAULT_HOLD_TIMEOUT_MS } from './constants';
import { directCallable } from './tool-policy';

/**
 * The canonical tool group, or the raw upper-cased name when no executor exists for it, so the
 * dispatcher can name the unknown group in its error (a direct tool_request may carry any text).
 */
export function normalizeToolGroup(group: string | null | undefined): string {
  return canonicalToolGroup(group) ?? (group ?? '').trim().toUpperCase();
}

/** Enabled tools whose scope admits (intent, state), most specific first (tool_code is unique). */
export function toolsInScope(snapshot: ConfigSnapshot, intent: string, state: string): McpToolRow[] {
  return rankByScope(
    snapshot.rows.mcpTools.filter((t) => t.enabled),
    intent,
    state,
    (a, b) => a.toolId - b.toolId
  );
}

export function findToolRow(snapshot: ConfigSnapshot, toolCode: string): McpToolRow | undefined {
  const code = toolCodeKey(toolCode);
  return snapshot.rows.mcpTools.find((t) => toolCodeKey(t.toolCode) === code);
}

/**
 * The enabled tool row for a code, or the typed refusal a turn records as the tool's result. The message names
 * what the caller can act on (the code), not our storage.
 */
export function requireEnabledTool(snapshot: ConfigSnapshot, toolCode: string): McpToolRow {
  const row = findToolRow(snapshot, toolCode);
  if (!row || !row.enabled) throw new EngineError(ErrorType.ToolNotAllowed, `No enabled tool is named ${toolCode}.`);
  return row;
}

export function sideEffectOf(row: McpToolRow): ToolSideEffect {
  const value = row.sideEffect.trim().toUpperCase() as ToolSideEffect;
  return (TOOL_SIDE_EFFECTS as readonly string[]).includes(value) ? value : 'READ_ONLY';
}

export function toolDescriptor(row: McpToolRow, snapshot: ConfigSnapshot): McpToolDescriptor {
  const approvalDefault = readSetting(snapshot, McpLoopSettings.approvalTimeoutMs);
  return {
    toolCode: row.toolCode,
    toolGroup: normalizeToolGroup(row.toolGroup),
    sideEffect: sideEffectOf(row),
    requiresApproval: row.requiresApproval,
    directCallable: directCallable(row),
    approvalTimeoutMs: row.requiresApproval ? (row.approvalTimeoutMs ?? approvalDefault) : row.approvalTimeoutMs,
    retry: {
      maxAttempts: row.maxAttempts,
      initialIntervalMs: row.initialIntervalMs,
      backoffCoefficient: row.backoffCoefficient,
      maxIntervalMs: row.maxIntervalMs,
      startToCloseTimeoutMs: row.startToCloseTimeoutMs,
    },
    onRetriesExhausted: oneOf(TOOL_RETRIES_EXHAUSTED_POLICIES, row.onRetriesExhausted) ?? 'ANSWER',
    holdTimeoutMs: row.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS,
  };
}

/** McpGuardrail settings as the driver needs them; a malformed map is a config error, not "allow all". */
export function nextToolGuardConfig(snapshot: ConfigSnapshot): NextToolGuardConfig {
  const raw = readSetting(snapshot, McpGuardrailSettings.allowedNext);
  if (!isJsonObject(raw)) {
    throw new EngineError(ErrorType.ConfigInvalid, 'McpGuardrail.ALLOWED_NEXT_BY_CURRENT_TOOL must be a JSON object');
  }
  const map: Record<string, string[]> = {};
  for (const [current, next] of Object.entries(raw)) {
    if (!Array.isArray(next) || next.some((v) => typeof v !== 'string')) {
      throw new EngineError(
        ErrorType.ConfigInvalid,
        `McpGuardrail.ALLOWED_NEXT_BY_CURRENT_TOOL["${current}"] must be an array of tool codes`
      );
    }
    map[current] = next as string[];
  }
  return {
    enabled: readSetting(snapshot, McpGuardrailSettings.enabled),
    failClosed: readSetting(snapshot, McpGuardrailSettings.failClosed),
    allowedNextByCurrentTool: map,
  };
}
