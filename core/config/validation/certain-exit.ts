import type { RuleRow } from '../types';
import { isAnyScope, normalizeScopeValue, scopeValueMatches } from '../scope';
import { normalizePhase, RULE_PHASES, type RulePhase } from '../../rules/phase';
import { findsUserRegex } from '../../rules/regex-cache';
import { javaTrim } from '../../text/java-trim';
import { equalsIgnoreCase } from '../../text/ignore-case';

/**
 * Where in a turn a row puts the session in a state: a rule's phase and the state it is written for, or a
 * classifier (IntentResolution, whose match runs POST_CLASSIFIER_INTENT and then POST_AGENT_INTENT rules).
 */
export type EntryPoint = { phase: string; ruleState: string } | 'CLASSIFIER';

/**
 * Phases every turn that reaches ResponseResolution runs (core/turn/driver.ts): McpPrepare runs PRE_AGENT_MCP rules
 * even when the planner is skipped, the Rules step PRE_RESPONSE_RESOLUTION. The others depend on the turn (a
 * classifier match, schema extraction, a tool call, the planner). A stop ends the turn with no response to find.
 */
const EVERY_TURN: readonly RulePhase[] = ['PRE_AGENT_MCP', 'PRE_RESPONSE_RESOLUTION'];

/** The rule phases certain to run, in the same turn, after the entering row has put the session in `state`. */
function phasesSurelyAfter(entry: EntryPoint, state: string): Set<RulePhase> {
  if (entry === 'CLASSIFIER') return new Set(['POST_CLASSIFIER_INTENT', 'POST_AGENT_INTENT', ...EVERY_TURN]);
  const phase = normalizePhase(entry.phase);
  if (phase === null) return new Set();
  const later = EVERY_TURN.filter((p) => RULE_PHASES.indexOf(p) > RULE_PHASES.indexOf(phase));
  if (phase === 'POST_CLASSIFIER_INTENT') later.push('POST_AGENT_INTENT');
  // The phase's next pass starts in the new state only when the entering rule was not written for it: a rule of
  // that state (or ANY) fires again in the pass that left it, and a pass ending where it began is the last.
  // Blank is ANY to the engine (core/rules/select.ts).
  const written = normalizeScopeValue(entry.ruleState);
  if (written !== '' && !isAnyScope(written) && written !== state) later.push(phase);
  return new Set(later);
}

/**
 * A REGEX that finds a match in every text the engine matches (at most USER_REGEX_MAX_TEXT, which the default
 * MESSAGE_MAX_BYTES keeps): it matches the empty text, and holds no assertion that the empty match at the start of
 * another text could fail (`$`, `\b`, `\B`, `\z`, `\Z`); `^` and `\A` hold there. `.*` and `^` are such patterns.
 */
function findsInEveryText(pattern: string): boolean {
  return pattern.trim() !== '' && !/\$|\\[bBzZ]/.test(pattern) && findsUserRegex(pattern, '');
}

/** A match condition that holds on every turn (core/rules/match.ts); JSON_PATH only as `$`, the facts themselves. */
export function alwaysMatches(rule: RuleRow): boolean {
  switch (rule.ruleType.trim().toUpperCase()) {
    case 'EXACT':
      return equalsIgnoreCase(javaTrim(rule.matchPattern), 'ANY');
    case 'REGEX':
      return findsInEveryText(rule.matchPattern);
    case 'JSON_PATH':
      return rule.matchPattern.trim() === '$';
    default:
      return false;
  }
}

/**
 * Whether an enabled SET_STATE rule written for `state` (not ANY), of `intent` or ANY (only ANY for an ANY intent),
 * surely takes the session out of it in the turn that entered it: its condition always holds, and its phase runs
 * after the entering row. A conditional rule, or one of a phase the turn may skip, leaves the state answerless.
 */
export function surelyLeft(rules: readonly RuleRow[], intent: string, state: string, entry: EntryPoint): boolean {
  const phases = phasesSurelyAfter(entry, state);
  return rules.some((r) => {
    const phase = normalizePhase(r.phase);
    return (
      r.enabled &&
      normalizeScopeValue(r.action) === 'SET_STATE' &&
      normalizeScopeValue(r.stateCode) === state &&
      normalizeScopeValue(r.actionValue) !== state &&
      (isAnyScope(intent) ? isAnyScope(r.intentCode) : scopeValueMatches(r.intentCode, intent)) &&
      phase !== null &&
      phases.has(phase) &&
      alwaysMatches(r)
    );
  });
}
