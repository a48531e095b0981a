import fc from 'fast-check';
import { ANY_SCOPE, normalizeScopeValue } from '../../../core/config/scope';
import type { RuleRow } from '../../../core/config/types';
import { candidateRules, RuleIndex } from '../../../core/rules/select';
import { ruleRow } from '../../support/config-rows';

/**
 * The selection as it was before rules were indexed: every rule filtered and its scope normalised on each call.
 * Kept here as the reference the index must agree with, on any rows (odd case, blanks, duplicate ids, ties).
 */
function scanCandidates(rules: readonly RuleRow[], intent: string, state: string, phase: string): RuleRow[] {
  const bucketValue = (value: string) => (normalizeScopeValue(value) === '' ? ANY_SCOPE : normalizeScopeValue(value));
  const i = bucketValue(intent);
  const s = bucketValue(state);
  const eligible = rules.filter((r) => r.enabled && normalizeScopeValue(r.phase) === phase);
  const seen = new Set<number>();
  const out: RuleRow[] = [];
  for (const [bi, bs] of [
    [i, s],
    [i, ANY_SCOPE],
    [ANY_SCOPE, s],
    [ANY_SCOPE, ANY_SCOPE],
  ]) {
    const bucket = eligible
      .filter((r) => bucketValue(r.intentCode) === bi && bucketValue(r.stateCode) === bs)
      .sort((a, b) => a.priority - b.priority || a.ruleId - b.ruleId);
    for (const rule of bucket) {
      if (seen.has(rule.ruleId)) continue;
      seen.add(rule.ruleId);
      out.push(rule);
    }
  }
  return out;
}

const scope = fc.constantFrom('ANY', 'any', ' Any ', 'FAQ', 'faq', ' FAQ', 'IDLE', 'idle', 'UNKNOWN', '', '  ');
const phase = fc.constantFrom('PRE_RESPONSE_RESOLUTION', 'pre_response_resolution ', 'POST_DIALOGUE_ACT', 'OTHER');
const rule = fc
  .record({
    ruleId: fc.integer({ min: 1, max: 12 }),
    intentCode: scope,
    stateCode: scope,
    phase,
    priority: fc.integer({ min: -2, max: 2 }),
    enabled: fc.boolean(),
    description: fc.string({ maxLength: 3 }),
  })
  .map((r): RuleRow => ({ ...ruleRow({ action: 'SET_STATE', actionValue: 'IDLE' }), ...r }));

describe('candidate rules from the index', () => {
  it('are the rules, in the order, that a scan of every rule selects', () => {
    fc.assert(
      fc.property(
        fc.array(rule, { maxLength: 30 }),
        fc.array(fc.tuple(scope, scope, phase), { minLength: 1, maxLength: 6 }),
        (rules, lookups) => {
          const index = new RuleIndex(rules);
          // Positions in `rules`: the same row objects, not rows that merely look alike.
          const rows = (list: RuleRow[]) => list.map((r) => rules.indexOf(r));
          for (const [intent, state, at] of lookups) {
            const expected = rows(scanCandidates(rules, intent, state, at));
            expect(rows(index.candidates(intent, state, at))).toEqual(expected);
            expect(rows(candidateRules(rules, intent, state, at))).toEqual(expected);
          }
        }
      ),
      { numRuns: 400 }
    );
  });
});
