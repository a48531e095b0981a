import { ANY_SCOPE, normalizeScopeValue } from '../config/scope';
import type { RuleRow } from '../config/types';

function bucketValue(value: string | null | undefined): string {
  const v = normalizeScopeValue(value);
  return v === '' ? ANY_SCOPE : v;
}

function byPriorityThenId(a: RuleRow, b: RuleRow): number {
  return a.priority - b.priority || a.ruleId - b.ruleId;
}

/**
 * Candidate rules for one pass (§3.2): buckets (intent,state) → (intent,ANY) → (ANY,state) →
 * (ANY,ANY), each by priority then id. Bucket order beats priority on purpose: a specific rule
 * always runs before a wildcard one. `UNKNOWN` is a literal, not a wildcard.
 */
export function candidateRules(rules: readonly RuleRow[], intent: string, state: string, phase: string): RuleRow[] {
  const i = bucketValue(intent);
  const s = bucketValue(state);
  const buckets: [string, string][] = [
    [i, s],
    [i, ANY_SCOPE],
    [ANY_SCOPE, s],
    [ANY_SCOPE, ANY_SCOPE],
  ];
  const eligible = rules.filter((r) => r.enabled && normalizeScopeValue(r.phase) === phase);
  const seen = new Set<number>();
  const out: RuleRow[] = [];
  for (const [bi, bs] of buckets) {
    const bucket = eligible
      .filter((r) => bucketValue(r.intentCode) === bi && bucketValue(r.stateCode) === bs)
      .sort(byPriorityThenId);
    for (const rule of bucket) {
      if (seen.has(rule.ruleId)) continue;
      seen.add(rule.ruleId);
      out.push(rule);
    }
  }
  return out;
}
