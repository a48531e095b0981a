import { toolCodeKey as norm } from '../config/vocabulary';
import type { NextToolGuardConfig } from '../turn/contracts';
import { BlockReason, FLOW_START, SemanticTool } from './constants';
import type { McpObservation } from './context';
import { hasResolvedInterpret } from './semantic-args';

/**
 * The next-tool guardrail (§6.4, D6, D9), checked by the driver before a planner-proposed tool
 * runs. Pure: it sees the proposed tool, the tools in scope, this turn's observations and the
 * configured allowed-next map, and returns a reason when the call must not happen.
 */
export interface NextToolCheck {
  toolCode: string;
  toolsInScope: readonly string[];
  observations: readonly McpObservation[];
  config: NextToolGuardConfig;
}

export type NextToolVerdict = { allowed: true } | { allowed: false; reason: string; currentTool: string };

export function currentToolOf(observations: readonly McpObservation[]): string {
  const last = observations[observations.length - 1];
  return last && last.toolCode.trim() !== '' ? last.toolCode : FLOW_START;
}

/** interpret → query; query → postgres.query or query; query never before a resolved interpret. */
export function semanticSequenceAllows(next: string, observations: readonly McpObservation[]): boolean {
  const nextTool = norm(next);
  if (nextTool === SemanticTool.query && !hasResolvedInterpret(observations)) return false;
  const last = norm(observations[observations.length - 1]?.toolCode);
  if (last === SemanticTool.interpret) return nextTool === SemanticTool.query;
  if (last === SemanticTool.query) return nextTool === SemanticTool.postgres || nextTool === SemanticTool.query;
  return true;
}

function allowedNextFor(config: NextToolGuardConfig, current: string): string[] | undefined {
  const map = config.allowedNextByCurrentTool;
  if (map[current] !== undefined) return map[current];
  const key = Object.keys(map).find((k) => norm(k) === norm(current));
  return key === undefined ? undefined : map[key];
}

/** The configured allowed-next map; disabled allows everything, an unmapped tool follows fail-open/closed. */
export function configuredGuardAllows(
  next: string,
  observations: readonly McpObservation[],
  config: NextToolGuardConfig
): boolean {
  if (!config.enabled) return true;
  if (norm(next) === '') return false;
  const allowed = allowedNextFor(config, currentToolOf(observations));
  if (!allowed || allowed.length === 0) return !config.failClosed;
  return allowed.some((code) => norm(code) === norm(next));
}

export function checkNextTool(check: NextToolCheck): NextToolVerdict {
  const currentTool = currentToolOf(check.observations);
  const block = (reason: string): NextToolVerdict => ({ allowed: false, reason, currentTool });
  if (!check.toolsInScope.some((code) => norm(code) === norm(check.toolCode))) return block(BlockReason.ToolNotInScope);
  if (!semanticSequenceAllows(check.toolCode, check.observations)) return block(BlockReason.SemanticSequence);
  if (!configuredGuardAllows(check.toolCode, check.observations, check.config)) return block(BlockReason.NextTool);
  return { allowed: true };
}
