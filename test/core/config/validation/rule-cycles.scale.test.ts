import { ValidationSink, type ValidationContext } from '../../../../core/config/validation/context';
import { checkRuleCycles } from '../../../../core/config/validation/rule-cycles';
import { validateConfig, validateConfigPausing } from '../../../../core/config/validate';
import * as match from '../../../../core/rules/match';
import type { RuleRow } from '../../../../core/config/types';
import { rule } from '../../../../db/seed/builders';
import { validBaseConfig } from '../../../support/config-fixtures';

jest.mock('../../../../core/rules/match', () => {
  const actual = jest.requireActual('../../../../core/rules/match');
  return { ...actual, evaluateRuleMatch: jest.fn(actual.evaluateRuleMatch) };
});

/** As the sweep's generator: n REGEX rules over n/10 intents, each naming its own word and setting one of 7 states. */
function generated(n: number): RuleRow[] {
  return Array.from({ length: n }, (_, r) =>
    rule({
      ruleId: 100000 + r,
      intentCode: `GEN_INTENT_${r % (n / 10)}`,
      stateCode: 'ANY',
      ruleType: 'REGEX',
      matchPattern: `(?i)\\bgen${r}\\b`,
      action: 'SET_STATE',
      actionValue: `S${r % 7}`,
      priority: r,
    })
  );
}

/** A loop of two rules on any message, which the check must still find among the generated rules. */
const loopRule = (ruleId: number, stateCode: string, actionValue: string) =>
  rule({
    ruleId,
    intentCode: 'GREETING',
    stateCode,
    ruleType: 'REGEX',
    matchPattern: '.*',
    action: 'SET_STATE',
    actionValue,
  });
const loop = [loopRule(9001, 'IDLE', 'LOOP_A'), loopRule(9002, 'LOOP_A', 'IDLE')];

const withGenerated = (n: number) => ({
  ...validBaseConfig(),
  rules: [...validBaseConfig().rules, ...loop, ...generated(n)],
});

/** The rule matches the check runs, and its warnings, for the base config plus n generated rules. */
function evaluationsFor(n: number): { evaluations: number; warnings: string[] } {
  const evaluate = match.evaluateRuleMatch as jest.Mock;
  evaluate.mockClear();
  const sink = new ValidationSink();
  const rows = withGenerated(n);
  checkRuleCycles({ rows, sink } as unknown as ValidationContext);
  return { evaluations: evaluate.mock.calls.length, warnings: sink.warnings.map((w) => `${w.id}: ${w.reason}`) };
}

describe('the rule-loop check on a large config (core/config/validation/rule-cycles.ts)', () => {
  it('runs a number of rule matches that grows linearly with the rules, and still finds the loop', () => {
    const small = evaluationsFor(80);
    const large = evaluationsFor(320);
    // Four times the rules (and intents): about four times the matches, not sixteen or more as messages × rules.
    expect(large.evaluations).toBeLessThan(small.evaluations * 6);
    for (const run of [small, large]) {
      expect(run.warnings).toHaveLength(1);
      expect(run.warnings[0]).toMatch(/^9001: rules 9001, 9002 \(PRE_RESPONSE_RESOLUTION\) move intent GREETING round/);
    }
  });

  it('pauses every few rule matches when validated for a store, not once the whole check has run', async () => {
    const rows = withGenerated(320);
    const evaluate = match.evaluateRuleMatch as jest.Mock;
    evaluate.mockClear();
    // The rule matches run between one pause and the next: a store's event loop serves nothing meanwhile.
    const between: number[] = [];
    let atLastPause = 0;
    const found = await validateConfigPausing(rows, () => {
      between.push(evaluate.mock.calls.length - atLastPause);
      atLastPause = evaluate.mock.calls.length;
      return Promise.resolve();
    });
    between.push(evaluate.mock.calls.length - atLastPause);
    expect(found).toEqual(validateConfig(rows));
    const total = between.reduce((a, b) => a + b, 0);
    // Before: the whole check (about 3,000 matches here) ran between two pauses, 21 pauses in all.
    expect(total).toBeGreaterThan(2_000);
    expect(Math.max(...between)).toBeLessThan(50);
    expect(between.filter((matches) => matches > 0).length).toBeGreaterThan(total / 10);
  });
});
