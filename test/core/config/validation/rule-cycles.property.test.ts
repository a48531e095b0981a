import fc from 'fast-check';
import { ValidationSink, type ValidationContext } from '../../../../core/config/validation/context';
import { checkRuleCycles } from '../../../../core/config/validation/rule-cycles';
import type { RuleRow } from '../../../../core/config/types';
import { RULE_STAGES, runRulePhase } from '../../../../core/rules';
import { ruleRow, sessionFor, snapshotOf } from '../../../support/config-rows';

/**
 * The cycle check against the engine itself, on random rule sets of one phase: REGEX rules that match the message
 * or not, and JSON_PATH rules on the state or intent the passes set, besides rules that set an input param. Whenever the engine's passes from some start
 * revisit an intent and state on the message, the check warns (it misses no loop the engine runs); whenever the
 * check warns, the engine runs into the pass limit from some start (it reports no loop the engine cannot run).
 */
const INTENTS = ['GREETING', 'FAQ'];
const STATES = ['IDLE', 'A', 'B'];
const MESSAGE = 'hello';
/** A message of each kind the conditions tell apart: the EXACT rules' text, ^never$'s, and any other. */
const MESSAGES = [MESSAGE, 'never', 'something else'];

const condition = fc.oneof(
  fc.constant({ ruleType: 'REGEX', matchPattern: '.*' }),
  fc.constant({ ruleType: 'REGEX', matchPattern: '^never$' }),
  fc.constant({ ruleType: 'EXACT', matchPattern: MESSAGE }),
  fc.constantFrom(...STATES).map((s) => ({ ruleType: 'JSON_PATH', matchPattern: `$[?(@.state == '${s}')]` })),
  fc.constantFrom(...INTENTS).map((i) => ({ ruleType: 'JSON_PATH', matchPattern: `$[?(@.intent == '${i}')]` }))
);
const move = fc.oneof(
  fc.constantFrom(...STATES).map((value) => ({ action: 'SET_STATE', actionValue: value })),
  fc.constantFrom(...INTENTS).map((value) => ({ action: 'SET_INTENT', actionValue: value })),
  fc.constant({ action: 'SET_INPUT_PARAM', actionValue: 'seen:true' })
);
const ruleSpec = fc.record({
  intentCode: fc.constantFrom('ANY', ...INTENTS),
  stateCode: fc.constantFrom('ANY', ...STATES),
  priority: fc.integer({ min: 0, max: 3 }),
  condition,
  move,
});

type RuleSpec = typeof ruleSpec extends fc.Arbitrary<infer T> ? T : never;

function rulesOf(specs: RuleSpec[]): RuleRow[] {
  return specs.map((spec, i) =>
    ruleRow({
      ruleId: 100 + i,
      intentCode: spec.intentCode,
      stateCode: spec.stateCode,
      priority: spec.priority,
      ...spec.condition,
      ...spec.move,
    })
  );
}

function cycleWarningCount(rules: RuleRow[]): number {
  const sink = new ValidationSink();
  const ctx = { rows: snapshotOf({ rules }).rows, sink } as unknown as ValidationContext;
  checkRuleCycles(ctx);
  return sink.warnings.length;
}

/**
 * From every start the engine may see (OTHER: codes no rule names), on each kind of message: whether its passes
 * revisit an intent and state, or hit the pass limit.
 */
async function engineRuns(rules: RuleRow[]): Promise<{ revisits: boolean; limited: boolean }> {
  const snapshot = snapshotOf({ rules });
  let revisits = false;
  let limited = false;
  const starts = [...INTENTS, 'OTHER'].flatMap((intent) => [...STATES, 'OTHER'].map((state) => ({ intent, state })));
  for (const message of MESSAGES)
    for (const { intent, state } of starts) {
      const out = await runRulePhase({
        session: sessionFor(message, { intent, state }),
        snapshot,
        phase: 'PRE_RESPONSE_RESOLUTION',
        source: 'RulesStep',
      });
      const limit = out.audits.find((a) => a.stage.startsWith(RULE_STAGES.PASS_LIMIT));
      if (!limit) continue;
      limited = true;
      const starts = (limit.payload.passStarts as { intent: string; state: string }[]).map(
        (p) => `${p.intent}/${p.state}`
      );
      const ends = `${out.session.intent}/${out.session.state}`;
      if (new Set([...starts, ends]).size < starts.length + 1) revisits = true;
    }
  return { revisits, limited };
}

describe('the rule-cycle check agrees with the engine (property)', () => {
  it('warns exactly of rule sets whose passes loop', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(ruleSpec, { minLength: 2, maxLength: 5 }), async (specs) => {
        const rules = rulesOf(specs);
        const warned = cycleWarningCount(rules) > 0;
        const engine = await engineRuns(rules);
        if (engine.revisits) expect(warned).toBe(true);
        if (warned) expect(engine.limited).toBe(true);
      }),
      { numRuns: 1000 }
    );
  });
});
