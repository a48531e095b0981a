import { ANY_SCOPE, normalizeScopeValue } from '../config/scope';
import type { RuleRow } from '../config/types';

function bucketValue(value: string | null | undefined): string {
  const v = normalizeScopeValue(value);
  return v === '' ? ANY_SCOPE : v;
}

function byPriorityThenId(a: RuleRow, b: RuleRow): number {
  return a.priority - b.priority || a.ruleId - b.ruleId;
}

const bucketKey = (intent: string, state: string) => `${intent}\u0000${state}`;

/**
 * The enabled rules grouped by normalised phase, intent and state once, so that candidates for one
 * (intent, state, phase) cost the four buckets' sizes, not a pass over every rule re-normalising its
 * scope (validation asks for every intent × state × phase). Each bucket is sorted on first use.
 */
export class RuleIndex {
  private readonly byPhase = new Map<string, Map<string, RuleRow[]>>();
  private readonly sorted = new Set<RuleRow[]>();

  constructor(rules: readonly RuleRow[]) {
    for (const rule of rules) {
      if (!rule.enabled) continue;
      const phase = normalizeScopeValue(rule.phase);
      let buckets = this.byPhase.get(phase);
      if (!buckets) this.byPhase.set(phase, (buckets = new Map()));
      const key = bucketKey(bucketValue(rule.intentCode), bucketValue(rule.stateCode));
      const bucket = buckets.get(key);
      if (bucket) bucket.push(rule);
      else buckets.set(key, [rule]);
    }
  }

  /** candidateRules for the indexed rules. */
  candidates(intent: string, state: string, phase: string): RuleRow[] {
    const buckets = this.byPhase.get(phase);
    if (!buckets) return [];
    const i = bucketValue(intent);
    const s = bucketValue(state);
    const seen = new Set<number>();
    const out: RuleRow[] = [];
    for (const key of [
      bucketKey(i, s),
      bucketKey(i, ANY_SCOPE),
      bucketKey(ANY_SCOPE, s),
      bucketKey(ANY_SCOPE, ANY_SCOPE),
    ]) {
      for (const rule of this.sortedBucket(buckets.get(key))) {
        if (seen.has(rule.ruleId)) continue;
        seen.add(rule.ruleId);
        out.push(rule);
      }
    }
    return out;
  }

  private sortedBucket(bucket: RuleRow[] | undefined): readonly RuleRow[] {
    if (!bucket) return [];
    if (!this.sorted.has(bucket)) {
      // Stable: rules of equal priority and id keep their row order, as a sort of the filtered rows would.
      bucket.sort(byPriorityThenId);
      this.sorted.add(bucket);
    }
    return bucket;
  }
}

/**
 * Candidate rules for one pass (§3.2): buckets (intent,state) → (intent,ANY) → (ANY,state) →
 * (ANY,ANY), each by priority then id. Bucket order beats priority on purpose: a specific rule
 * always runs before a wildcard one. `UNKNOWN` is a literal, not a wildcard. For many lookups over
 * the same rules, build a RuleIndex once.
 */
export function candidateRules(rules: readonly RuleRow[], intent: string, state: string, phase: string): RuleRow[] {
  return new RuleIndex(rules).candidates(intent, state, phase);
}
