import { isJsonObject, shareJson, type Json, type JsonObject } from '../json';
import type { Session } from '../session';
import { MCP_TURN_PARAMS, McpStatus } from './constants';
import { mcpContext, readMcp, setParam } from './mcp-node';
import { writeSemanticPipeline } from './semantic-context';
import { readMcpState, writeMcpLoopFlags, type McpObservationState } from './state';

export { mcpContext, readMcp, setParam };

/**
 * Reads and writes `context.mcp`, the MCP step's rule-visible state. Functions mutate the session
 * they are given; activities pass their private copy, driver code clones first.
 */
/** One tool result of this turn (D15: kept whole; only the planner's view is compacted). */
export type McpObservation = McpObservationState;

export function readObservations(session: Session): McpObservation[] {
  return readMcpState(session).observations;
}

/** `holder[key]` shared (shareJson) when `holder` is an object that has it. */
function shareField(holder: Json | undefined, key: string): void {
  const value = isJsonObject(holder) ? holder[key] : undefined;
  if (value !== undefined) shareJson(value);
}

/**
 * Shares (core/json.ts shareJson) the tool results a session holds, which nothing changes once taken in: this turn's
 * observations and the direct tool's result. A session that came through Temporal's payloads holds them as fresh
 * objects; shared, the steps of the activity neither copy nor compare them (a 1 MB result cost seconds a step).
 */
export function shareToolResults(session: Session): void {
  const mcp = readMcp(session);
  const observations = mcp?.['observations'];
  if (Array.isArray(observations)) for (const observation of observations) shareField(observation, 'result');
  shareField(mcp?.['toolExecution'], 'result');
  shareField(session.inputParams['tool_result'], 'result');
}

export function appendObservation(session: Session, observation: McpObservation): void {
  const mcp = mcpContext(session);
  const list = Array.isArray(mcp['observations']) ? mcp['observations'] : [];
  list.push({ ...observation });
  mcp['observations'] = list;
}

export interface LifecycleWrite {
  status: string;
  outcome: string;
  finished: boolean;
  blocked?: boolean;
  error?: boolean;
  lastAction?: string | null;
  lastToolCode?: string | null;
  lastToolGroup?: string | null;
  lastToolArgs?: JsonObject | null;
  errorMessage?: string | null;
}

function setOrRemove(target: JsonObject, key: string, value: Json | undefined): void {
  const empty =
    value === null || value === undefined || value === '' || (isJsonObject(value) && Object.keys(value).length === 0);
  if (empty) delete target[key];
  else target[key] = value;
}

/** `context.mcp.lifecycle` (phase is always POST_AGENT_MCP; empty optional fields are removed). */
export function writeLifecycle(session: Session, w: LifecycleWrite): void {
  const mcp = mcpContext(session);
  const lifecycle: JsonObject = isJsonObject(mcp['lifecycle']) ? mcp['lifecycle'] : {};
  lifecycle['phase'] = 'POST_AGENT_MCP';
  lifecycle['status'] = w.status;
  lifecycle['outcome'] = w.outcome;
  lifecycle['finished'] = w.finished;
  lifecycle['blocked'] = w.blocked ?? false;
  lifecycle['error'] = w.error ?? false;
  lifecycle['toolExecuted'] = w.status === McpStatus.ToolResult;
  setOrRemove(lifecycle, 'lastAction', w.lastAction);
  setOrRemove(lifecycle, 'lastToolCode', w.lastToolCode);
  setOrRemove(lifecycle, 'lastToolGroup', w.lastToolGroup);
  setOrRemove(lifecycle, 'lastToolArgs', w.lastToolArgs);
  setOrRemove(lifecycle, 'errorMessage', w.errorMessage);
  mcp['lifecycle'] = lifecycle;
  setParam(session, 'mcp_status', w.status);
  writeSemanticPipeline(mcp, w);
}

export function writeLoopFlags(
  session: Session,
  finalAnswerDetermined: boolean,
  abrupted: boolean,
  limit: number
): void {
  writeMcpLoopFlags(session, {
    finalAnswerDetermined,
    toolExecutionAbrupted: abrupted,
    toolExecutionAbruptionLimit: Math.max(1, limit),
  });
}

/** The loop limit recorded for this turn (written when the planner loop starts). */
export function loopLimitOf(session: Session): number {
  return readMcpState(session).toolExecutionAbruptionLimit ?? 1;
}

export function writeFinalAnswer(session: Session, answer: string): void {
  const mcp = mcpContext(session);
  mcp['finalAnswer'] = answer;
  writeMcpLoopFlags(session, { finalAnswerDetermined: true, toolExecutionAbrupted: false });
  setParam(session, 'mcp_final_answer', answer);
}

export function finalAnswerDetermined(session: Session): boolean {
  return readMcpState(session).finalAnswerDetermined === true;
}

/** The per-turn `context.mcp` keys (§6.1 step 3, plus the tool error details). */
const MCP_TURN_KEYS = [
  'finalAnswer',
  'finalAnswerDetermined',
  'toolExecutionAbrupted',
  'toolExecutionAbruptionLimit',
  'observations',
  'lifecycle',
  'semantic',
  'toolExecutionError',
] as const;

/**
 * Stale-answer guard: everything the previous planner run left behind (answer, observations,
 * lifecycle, semantic state, error details, per-turn params). `toolExecution` survives: the
 * direct tool path of this same turn wrote it just before.
 */
export function clearMcpTurnContext(session: Session): void {
  const mcp = readMcp(session);
  if (mcp) for (const key of MCP_TURN_KEYS) delete mcp[key];
  for (const key of MCP_TURN_PARAMS) delete session.inputParams[key];
}

/**
 * What only the planner loop writes. Before this turn's planner has run, any of it is an earlier
 * turn's. A lifecycle alone is not: every skip writes one (and overwrites the last), and so does
 * `mcp_status`.
 */
const PLANNER_ONLY_KEYS = MCP_TURN_KEYS.filter((key) => key !== 'lifecycle');
const PLANNER_ONLY_PARAMS = MCP_TURN_PARAMS.filter((key) => key !== 'mcp_status');

/** The planner output of an earlier turn that `context.mcp` and the input params still hold, by name. */
export function earlierPlannerOutput(session: Session): string[] {
  const mcp = readMcp(session) ?? {};
  return [
    ...PLANNER_ONLY_KEYS.filter((key) => mcp[key] !== undefined),
    ...PLANNER_ONLY_PARAMS.filter((key) => session.inputParams[key] !== undefined),
  ];
}

/** Whether the planner was called during this turn's MCP run (set by every planner iteration). */
export function plannerRan(session: Session): boolean {
  return typeof session.inputParams['mcp_action'] === 'string';
}

/**
 * End of the planner loop: a planner that ran without reaching a final answer hit the loop
 * limit, which rules see as `toolExecutionAbrupted` (the lifecycle keeps its IN_PROGRESS values).
 */
export function markAbruptedIfUnanswered(session: Session): boolean {
  if (!plannerRan(session) || finalAnswerDetermined(session)) return false;
  writeLoopFlags(session, false, true, loopLimitOf(session));
  return true;
}
