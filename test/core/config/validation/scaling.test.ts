import type { ConfigRows, RuleRow } from '../../../../core/config/types';
import { validateConfig } from '../../../../core/config/validate';
import { largeConfigRows } from '../../../support/large-config';

/**
 * Validation must grow near-linearly with the config: a config twice the size costs about twice the work. Work is
 * counted, not timed: reads of rule rows' fields, which a check that scans every rule per intent × state × phase
 * (the cycle check once did, taking a minute at 800 intents) multiplies by the config's size.
 */
function ruleReads(rows: ConfigRows): { reads: number; warnings: number; violations: number } {
  let reads = 0;
  const counted = rows.rules.map(
    (rule) =>
      new Proxy(rule, {
        get: (target, key) => {
          reads += 1;
          return Reflect.get(target, key) as unknown;
        },
      }) as RuleRow
  );
  const result = validateConfig({ ...rows, rules: counted });
  return { reads, warnings: result.warnings.length, violations: result.violations.length };
}

describe('validation at scale', () => {
  it('reads each rule a bounded number of times, however many intents the config has', () => {
    const small = ruleReads(largeConfigRows(40));
    const large = ruleReads(largeConfigRows(160));
    expect(small).toMatchObject({ warnings: 0, violations: 0 });
    expect(large).toMatchObject({ warnings: 0, violations: 0 });
    // Four times the rules: linear work reads about four times as much; the per-start scan read sixteen times.
    expect(large.reads / small.reads).toBeLessThan(5);
  });
});
