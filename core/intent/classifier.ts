import type { ClassifierRow, ConfigSnapshot } from '../config/types';
import { findsUserRegex } from '../rules/regex-cache';
import { containsIgnoreCase, equalsIgnoreCase, startsWithIgnoreCase } from '../text/ignore-case';
import { javaTrim } from '../text/java-trim';

export type ClassifierOutcome =
  | { kind: 'MATCH'; intent: string; state: string; row: ClassifierRow }
  | { kind: 'COLLISION'; matchedIntents: string[]; matchedByRule: { classifierId: number; intent: string }[] }
  | { kind: 'NO_MATCH' };

/**
 * D7: REGEX (find), CONTAINS, STARTS_WITH, EXACT; all case-insensitive on the raw text, the last three as Java's
 * equalsIgnoreCase compares (core/text/ignore-case.ts).
 */
export function classifierMatches(row: ClassifierRow, text: string): boolean {
  const pattern = row.pattern;
  switch (row.ruleType.trim().toUpperCase()) {
    case 'REGEX':
      return findsUserRegex(pattern, text);
    case 'CONTAINS':
      return pattern !== '' && containsIgnoreCase(text, pattern);
    case 'STARTS_WITH':
      return pattern !== '' && startsWithIgnoreCase(text.trimStart(), pattern);
    case 'EXACT':
      return equalsIgnoreCase(javaTrim(text), javaTrim(pattern));
    default:
      return false;
  }
}

function enabledIntentCodes(snapshot: ConfigSnapshot): Set<string> {
  return new Set(snapshot.rows.intents.filter((i) => i.enabled).map((i) => i.intentCode.trim().toUpperCase()));
}

/**
 * Runs every enabled classifier of an enabled intent (priority order). One distinct intent is a
 * match (state from the first matching row, blank → UNKNOWN); several are a collision that the
 * agent must settle.
 */
export function classifyIntent(snapshot: ConfigSnapshot, text: string): ClassifierOutcome {
  const intents = enabledIntentCodes(snapshot);
  const rows = snapshot.rows.classifiers
    .filter((r) => r.enabled && intents.has(r.intentCode.trim().toUpperCase()))
    .sort((a, b) => a.priority - b.priority || a.classifierId - b.classifierId);
  const matched = rows.filter((r) => classifierMatches(r, text));
  const first = matched[0];
  if (!first) return { kind: 'NO_MATCH' };
  const distinct = [...new Set(matched.map((r) => r.intentCode.trim().toUpperCase()))];
  if (distinct.length > 1) {
    return {
      kind: 'COLLISION',
      matchedIntents: distinct,
      matchedByRule: matched.map((r) => ({ classifierId: r.classifierId, intent: r.intentCode })),
    };
  }
  const state = first.stateCode.trim() === '' ? 'UNKNOWN' : first.stateCode.trim().toUpperCase();
  return { kind: 'MATCH', intent: first.intentCode.trim(), state, row: first };
}
