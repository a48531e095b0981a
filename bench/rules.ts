import type { RuleRow } from '../core/config/types';
import { runRulePhase } from '../core/rules';
import { ruleRow, sessionFor, snapshotOf } from '../test/support/config-rows';

/**
 * Benchmark: one rule phase over 1,000 rules in scope (core/rules engine), a third each REGEX,
 * JSON_PATH and EXACT; every tenth rule matches and sets an input param (no state change, so one
 * pass). The cost includes what a real phase pays per rule: candidate selection, the facts
 * document, matching, and the RULE_MATCH / RULE_NO_MATCH / RULE_APPLIED audit records.
 * Run: `npx tsx bench/rules.ts`.
 */
export interface RulesBench {
  name: 'rules';
  rules: number;
  runs: number;
  msPerPhase: number;
  microsPerRule: number;
  applied: number;
}

function benchRules(count: number): RuleRow[] {
  return Array.from({ length: count }, (_, i) => {
    const hit = i % 10 === 0;
    const kind = i % 3;
    const base = { ruleId: 10_000 + i, intentCode: 'BENCH', stateCode: 'RUN', priority: i, action: 'SET_INPUT_PARAM' };
    const actionValue = `rule_${i}:true`;
    if (kind === 0) {
      return ruleRow({
        ...base,
        ruleType: 'REGEX',
        matchPattern: hit ? '(?i)\\border\\b' : `(?i)\\bitem-${i}\\b`,
        actionValue,
      });
    }
    if (kind === 1) {
      const pattern = hit ? "$[?(@.intent == 'BENCH')]" : `$[?(@.inputParams.flag_${i} == true)]`;
      return ruleRow({ ...base, ruleType: 'JSON_PATH', matchPattern: pattern, actionValue });
    }
    return ruleRow({ ...base, ruleType: 'EXACT', matchPattern: hit ? 'check my order' : `code ${i}`, actionValue });
  });
}

export async function benchRulesEngine(count = 1_000, runs = 30): Promise<RulesBench> {
  const snapshot = snapshotOf({ rules: benchRules(count) });
  const request = () => ({
    session: sessionFor('check my order', { intent: 'BENCH', state: 'RUN' }),
    snapshot,
    phase: 'PRE_RESPONSE_RESOLUTION' as const,
    source: 'RulesStep',
  });
  for (let i = 0; i < 3; i++) await runRulePhase(request());
  let applied = 0;
  const started = performance.now();
  for (let i = 0; i < runs; i++) applied = (await runRulePhase(request())).appliedCount;
  const ms = (performance.now() - started) / runs;
  return { name: 'rules', rules: count, runs, msPerPhase: ms, microsPerRule: (ms * 1000) / count, applied };
}

if (require.main === module) {
  void benchRulesEngine().then((r) =>
    console.log(
      `rules: ${r.msPerPhase.toFixed(2)} ms per phase of ${r.rules} rules (${r.microsPerRule.toFixed(1)} µs/rule, ` +
        `${r.applied} applied, ${r.runs} runs)`
    )
  );
}
