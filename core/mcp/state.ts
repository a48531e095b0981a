import { isJsonObject, type Json, type JsonObject } from '../json';
import type { Session } from '../session';
import { childObject, mcpContext, readMcp } from './mcp-node';

/**
 * The MCP step's state as a type. Its serialised form is the documented `context.mcp` layout
 * (docs/architecture.md, spec reference §6.6), which rules read by JSONPath; readMcpState parses
 * it (hostile: anything of the wrong type reads as absent) and the writers below keep it.
 */
export interface McpLoopFlags {
  finalAnswerDetermined: boolean;
  toolExecutionAbrupted: boolean;
  toolExecutionAbruptionLimit: number;
}

export interface McpLifecycle extends Partial<McpLoopFlags> {
  phase: string | null;
  status: string | null;
  outcome: string | null;
  finished: boolean;
  blocked: boolean;
  error: boolean;
  toolExecuted: boolean;
  lastAction: string | null;
  lastToolCode: string | null;
  lastToolGroup: string | null;
  errorMessage: string | null;
}

export interface McpObservationState {
  toolCode: string;
  args: JsonObject;
  status: string;
  result: Json;
}

export interface McpState extends Partial<McpLoopFlags> {
  finalAnswer: string | null;
  observations: McpObservationState[];
  lifecycle: McpLifecycle | null;
  /** The direct tool path's record (POST_TOOL_EXECUTION); kept as JSON, its fields are documented. */
  toolExecution: JsonObject | null;
  toolExecutionError: JsonObject | null;
  semantic: JsonObject | null;
}

const LOOP_FLAG_KEYS = ['finalAnswerDetermined', 'toolExecutionAbrupted', 'toolExecutionAbruptionLimit'] as const;

function str(value: Json | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

function loopFlags(node: JsonObject): Partial<McpLoopFlags> {
  const flags: Partial<McpLoopFlags> = {};
  if (typeof node['finalAnswerDetermined'] === 'boolean') flags.finalAnswerDetermined = node['finalAnswerDetermined'];
  if (typeof node['toolExecutionAbrupted'] === 'boolean') flags.toolExecutionAbrupted = node['toolExecutionAbrupted'];
  const limit = node['toolExecutionAbruptionLimit'];
  if (typeof limit === 'number') flags.toolExecutionAbruptionLimit = limit;
  return flags;
}

function lifecycleOf(node: Json | undefined): McpLifecycle | null {
  if (!isJsonObject(node)) return null;
  return {
    ...loopFlags(node),
    phase: str(node['phase']),
    status: str(node['status']),
    outcome: str(node['outcome']),
    finished: node['finished'] === true,
    blocked: node['blocked'] === true,
    error: node['error'] === true,
    toolExecuted: node['toolExecuted'] === true,
    lastAction: str(node['lastAction']),
    lastToolCode: str(node['lastToolCode']),
    lastToolGroup: str(node['lastToolGroup']),
    errorMessage: str(node['errorMessage']),
  };
}

function observationsOf(node: Json | undefined): McpObservationState[] {
  if (!Array.isArray(node)) return [];
  return node.filter(isJsonObject).map((o) => ({
    toolCode: str(o['toolCode']) ?? '',
    args: isJsonObject(o['args']) ? o['args'] : {},
    status: str(o['status']) ?? 'SUCCESS',
    result: o['result'] ?? null,
  }));
}

function objectOrNull(node: Json | undefined): JsonObject | null {
  return isJsonObject(node) ? node : null;
}

/** `context.mcp` as an McpState (an empty state when the turn has none). */
export function readMcpState(session: Pick<Session, 'context'>): McpState {
  const mcp = readMcp(session) ?? {};
  return {
    ...loopFlags(mcp),
    finalAnswer: str(mcp['finalAnswer']),
    observations: observationsOf(mcp['observations']),
    lifecycle: lifecycleOf(mcp['lifecycle']),
    toolExecution: objectOrNull(mcp['toolExecution']),
    toolExecutionError: objectOrNull(mcp['toolExecutionError']),
    semantic: objectOrNull(mcp['semantic']),
  };
}

/**
 * D18: the loop flags are written both at `context.mcp.*` (Java engine) and inside
 * `context.mcp.lifecycle` (seed mcp-advanced-guide), so a rule written from either source matches.
 */
export function writeMcpLoopFlags(session: Session, flags: Partial<McpLoopFlags>): void {
  const mcp = mcpContext(session);
  const lifecycle = childObject(mcp, 'lifecycle');
  for (const key of LOOP_FLAG_KEYS) {
    const value = flags[key];
    if (value === undefined) continue;
    mcp[key] = value;
    lifecycle[key] = value;
  }
}
