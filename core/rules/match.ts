import type { RuleRow } from '../config/types';
import type { JsonObject } from '../json';
import { evaluateJsonPathRule, firstJsonPathMatch } from './jsonpath';
import { equalsIgnoreCase } from '../text/ignore-case';
import { javaTrim } from '../text/java-trim';
import { findsUserRegex } from './regex-cache';

export type RuleMatchResult =
  { matched: true } | { matched: false; reason: 'TYPE_CONDITION_NOT_MET' | 'TYPE_RESOLVER_MISSING' };

export interface MatchInput {
  /** Raw user text (REGEX/EXACT never see the standalone query). */
  userText: string;
  facts: JsonObject;
  context: JsonObject;
}

/** Java's trimmed equalsIgnoreCase (core/text/ignore-case.ts); the pattern `ANY` matches any text. */
function exactMatches(pattern: string, text: string): boolean {
  const p = javaTrim(pattern);
  if (p === '') return false;
  if (equalsIgnoreCase(p, 'ANY')) return true;
  return equalsIgnoreCase(p, javaTrim(text));
}

function contextPathMatches(pattern: string, context: JsonObject): boolean {
  const value = firstJsonPathMatch(pattern, context);
  return value !== undefined && value !== null;
}

function conditionHolds(type: string, pattern: string, input: MatchInput): boolean | null {
  switch (type) {
    case 'EXACT':
      return exactMatches(pattern, input.userText);
    case 'REGEX':
      return pattern.trim() !== '' && findsUserRegex(pattern, input.userText);
    case 'JSON_PATH':
      return pattern.trim() !== '' && evaluateJsonPathRule(pattern, input.facts);
    case 'CONTEXT_JSON_PATH':
      return pattern.trim() !== '' && contextPathMatches(pattern, input.context);
    default:
      return null;
  }
}

/** Evaluates a rule's match condition (§3.3). Unknown rule types never match. */
export function evaluateRuleMatch(rule: RuleRow, input: MatchInput): RuleMatchResult {
  const holds = conditionHolds(rule.ruleType.trim().toUpperCase(), rule.matchPattern, input);
  if (holds === null) return { matched: false, reason: 'TYPE_RESOLVER_MISSING' };
  return holds ? { matched: true } : { matched: false, reason: 'TYPE_CONDITION_NOT_MET' };
}
