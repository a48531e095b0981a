import type { ConfigSnapshot, PolicyRow } from '../config/types';
import { findsUserRegex } from '../rules/regex-cache';
import { containsIgnoreCase, equalsIgnoreCase, startsWithIgnoreCase } from '../text/ignore-case';
import { exceedsUserRegexText } from '../text/regex';

function policyMatches(row: PolicyRow, text: string): boolean {
  const pattern = row.pattern;
  if (pattern.trim() === '') return false;
  switch (row.ruleType.trim().toUpperCase()) {
    case 'REGEX':
      // A policy refuses: text too long for any author pattern to search is refused rather than let through.
      return exceedsUserRegexText(text) || findsUserRegex(pattern, text);
    case 'CONTAINS':
      return containsIgnoreCase(text, pattern);
    case 'STARTS_WITH':
      return startsWithIgnoreCase(text.trimStart(), pattern);
    case 'EXACT':
      return equalsIgnoreCase(text.trim(), pattern.trim());
    default:
      return false;
  }
}

/** The first enabled ce_policy (priority, then id) whose pattern matches the raw text. */
export function blockingPolicy(snapshot: ConfigSnapshot, text: string): PolicyRow | undefined {
  return snapshot.rows.policies
    .filter((p) => p.enabled)
    .sort((a, b) => a.priority - b.priority || a.policyId - b.policyId)
    .find((p) => policyMatches(p, text));
}
