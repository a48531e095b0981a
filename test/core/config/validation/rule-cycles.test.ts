import { validateConfig } from '../../../../core/config/validate';
import { ValidationSink, type ValidationContext } from '../../../../core/config/validation/context';
import { checkRuleCycles } from '../../../../core/config/validation/rule-cycles';
import { formatViolation, type ConfigRows, type RuleRow } from '../../../../core/config/types';
import { response, rule } from '../../../../db/seed/builders';
import { validBaseConfig } from '../../../support/config-fixtures';

type RuleSpec = Pick<RuleRow, 'ruleId' | 'intentCode' | 'stateCode' | 'action'> & Partial<RuleRow>;
const move = (spec: RuleSpec) => rule({ ruleType: 'REGEX', matchPattern: '.*', actionValue: null, ...spec });

/** The cycle warnings for the base config plus these rules (and a response for each state they name, so no other warning). */
function cycleWarnings(...rules: RuleRow[]): string[] {
  const rows: ConfigRows = validBaseConfig();
  rows.rules.push(...rules);
  const states = rules.flatMap((r) => [r.stateCode, r.action === 'SET_STATE' ? r.actionValue : null]);
  for (const state of new Set(states.filter((s) => s !== null && s !== 'ANY' && s !== 'IDLE')))
    rows.responses.push(
      response({
        responseId: rows.responses.length + 900,
        intentCode: 'ANY',
        stateCode: state as string,
        responseType: 'EXACT',
        outputFormat: 'TEXT',
        exactText: 'ok',
      })
    );
  const result = validateConfig(rows);
  expect(result.violations).toEqual([]);
  return result.warnings.map(formatViolation).filter((w) => w.includes('rule passes'));
}

describe('rule loops that hit the pass limit (core/config/validation/rule-cycles.ts)', () => {
  const toA = move({
    ruleId: 9001,
    intentCode: 'GREETING',
    stateCode: 'IDLE',
    action: 'SET_STATE',
    actionValue: 'LOOP_A',
  });
  const back = move({
    ruleId: 9002,
    intentCode: 'GREETING',
    stateCode: 'LOOP_A',
    action: 'SET_STATE',
    actionValue: 'IDLE',
  });

  it('warns of two rules of one phase that set a state and back on any message, in one sentence', () => {
    expect(cycleWarnings(toA, back)).toEqual([
      'ce_rule[9001]: rules 9001, 9002 (PRE_RESPONSE_RESOLUTION) move intent GREETING round IDLE → LOOP_A → IDLE ' +
        'on the same message (e.g. "hello"), so such a turn runs all 5 rule passes and stops wherever the last ' +
        'leaves it (RULE_PASS_LIMIT_REACHED); make their match patterns exclude each other or drop one of the moves',
    ]);
  });

  it('finds a loop through SET_INTENT and ANY rows, on a message only the rules name', () => {
    const warnings = cycleWarnings(
      move({
        ruleId: 9101,
        intentCode: 'GREETING',
        stateCode: 'LOOP_B',
        action: 'SET_INTENT',
        actionValue: 'FAQ',
        ruleType: 'EXACT',
        matchPattern: 'again',
      }),
      move({
        ruleId: 9102,
        intentCode: 'FAQ',
        stateCode: 'ANY',
        action: 'SET_INTENT',
        actionValue: 'GREETING',
        ruleType: 'REGEX',
        matchPattern: 'gain',
      })
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        /^ce_rule\[9101\]: rules 9101, 9102 \(PRE_RESPONSE_RESOLUTION\) move the session round (GREETING|FAQ)\/LOOP_B → .* \(e\.g\. "again"\)/
      ),
    ]);
  });

  // Every row has its four values: jest passes a test function with more parameters than values a done callback.
  it.each<[string, Partial<RuleRow>, Partial<RuleRow>, RuleRow | null]>([
    ['patterns no one message matches both of', { matchPattern: '^bye$' }, { matchPattern: '^hi$' }, null],
    ['the rules in different phases', { phase: 'POST_DIALOGUE_ACT' }, {}, null],
    [
      'a JSON_PATH rule reading input params, which other rules may change between passes',
      { ruleType: 'JSON_PATH', matchPattern: '$[?(@.inputParams.round == 1)]' },
      {},
      null,
    ],
    [
      'a JSON_PATH rule on a state the loop never reaches',
      { ruleType: 'JSON_PATH', matchPattern: "$[?(@.state == 'ELSEWHERE')]" },
      {},
      null,
    ],
    [
      'a wider rule, later in the same pass, that moves the session out',
      {},
      {},
      move({ ruleId: 9003, intentCode: 'GREETING', stateCode: 'ANY', action: 'SET_STATE', actionValue: 'DONE' }),
    ],
    [
      'a SHORT_CIRCUIT that ends evaluation first',
      {},
      {},
      move({ ruleId: 9004, intentCode: 'ANY', stateCode: 'LOOP_A', action: 'SHORT_CIRCUIT', actionValue: 'bye' }),
    ],
  ])('does not warn of a loop broken by %s', (_, a, b, extra) => {
    expect(cycleWarnings({ ...toA, ...a }, { ...back, ...b }, ...(extra ? [extra] : []))).toEqual([]);
  });

  it('does not warn of a chain that ends, however long', () => {
    const chain = ['IDLE', 'LOOP_A', 'LOOP_B'].map((from, i, all) =>
      move({
        ruleId: 9200 + i,
        intentCode: 'GREETING',
        stateCode: from,
        action: 'SET_STATE',
        actionValue: all[i + 1] ?? 'DONE',
      })
    );
    expect(cycleWarnings(...chain)).toEqual([]);
  });

  it('finds a loop of JSON_PATH rules that read only the state the passes set, as state machines are written', () => {
    const onState = (state: string) => ({ ruleType: 'JSON_PATH', matchPattern: `$[?(@.state == '${state}')]` });
    expect(cycleWarnings({ ...toA, ...onState('IDLE') }, { ...back, ...onState('LOOP_A') })).toEqual([
      expect.stringMatching(
        /^ce_rule\[9001\]: rules 9001, 9002 \(PRE_RESPONSE_RESOLUTION\) move intent GREETING round/
      ),
    ]);
    expect(cycleWarnings({ ...toA, ruleType: 'JSON_PATH', matchPattern: '$.userText' }, back)).toHaveLength(1);
  });

  it('finds a loop whose pass also holds a JSON_PATH mover that does not match', () => {
    const idle = move({
      ruleId: 9005,
      intentCode: 'GREETING',
      stateCode: 'ANY',
      action: 'SET_STATE',
      actionValue: 'DONE',
      ruleType: 'JSON_PATH',
      matchPattern: "$[?(@.intent == 'FAQ')]",
    });
    expect(cycleWarnings(toA, back, idle)).toHaveLength(1);
  });

  it('finds a loop on a message only the REGEX patterns describe, neither the probe nor their text', () => {
    const digits = (spec: RuleRow, matchPattern: string) => ({ ...spec, ruleType: 'REGEX', matchPattern });
    expect(cycleWarnings(digits(toA, '^\\d+$'), digits(back, '[0-9]{2,}'))).toEqual([
      expect.stringContaining('on the same message (e.g. "00")'),
    ]);
  });

  it('finds a loop through a REGEX that spells its text by code (\\x41BC matches "ABC")', () => {
    const spelled = cycleWarnings(
      { ...toA, ruleType: 'REGEX', matchPattern: '^\\x41BC$' },
      { ...back, ruleType: 'EXACT', matchPattern: 'ABC' }
    );
    expect(spelled).toEqual([expect.stringContaining('on the same message (e.g. "ABC")')]);
  });

  it('follows the engine when two rows share a rule id: the first by priority hides the other, which never runs', () => {
    const rules = (hiderId: number) => [
      { ...toA, ruleId: hiderId, action: 'SET_INPUT_PARAM', actionValue: 'seen:true', priority: 1 },
      { ...toA, priority: 2 },
      back,
    ];
    const warnings = (list: RuleRow[]) => {
      const sink = new ValidationSink();
      checkRuleCycles({ rows: { ...validBaseConfig(), rules: list }, sink } as unknown as ValidationContext);
      return sink.warnings;
    };
    expect(warnings(rules(9003))).toHaveLength(1);
    expect(warnings(rules(toA.ruleId))).toEqual([]);
  });
});
