import { runRulePhase } from '../../../core/rules';
import { ruleRow, sessionFor, snapshotOf } from '../../support/config-rows';
import { ruleIds, stages } from './rule-audits';

describe('runRulePhase: selection, ordering and passes (scenario 17)', () => {
  const rules = [
    ruleRow({ ruleId: 1, intentCode: 'X', stateCode: 'S1', priority: 50, action: 'SET_STATE', actionValue: 'S2' }),
    ruleRow({ ruleId: 2, intentCode: 'X', stateCode: 'S2', priority: 1, action: 'SET_STATE', actionValue: 'S3' }),
    ruleRow({
      ruleId: 3,
      intentCode: 'ANY',
      stateCode: 'ANY',
      priority: 1,
      action: 'SET_INPUT_PARAM',
      actionValue: 'seen:true',
    }),
    ruleRow({
      ruleId: 4,
      intentCode: 'X',
      stateCode: 'S1',
      priority: 99,
      ruleType: 'EXACT',
      matchPattern: 'ANY',
      action: 'SET_INPUT_PARAM',
      actionValue: 'late:true',
    }),
  ];

  it('runs specific buckets before ANY, fires every match, and repeats while state changes', async () => {
    const session = sessionFor('anything', { intent: 'X', state: 'S1' });
    const out = await runRulePhase({
      session,
      snapshot: snapshotOf({ rules }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });
    expect(ruleIds(out.audits, 'RULE_APPLIED (RulesStep)')).toEqual([1, 4, 3, 2, 3, 3]);
    expect(out.session.state).toBe('S3');
    expect(out.session.inputParams).toMatchObject({ seen: true, late: true });
    expect(out.passes).toBe(3);
    expect(session.state).toBe('S1');
  });

  it('stops after five passes on a cycle', async () => {
    const cycle = [
      ruleRow({ ruleId: 11, intentCode: 'X', stateCode: 'S1', action: 'SET_STATE', actionValue: 'S2' }),
      ruleRow({ ruleId: 12, intentCode: 'X', stateCode: 'S2', action: 'SET_STATE', actionValue: 'S1' }),
    ];
    const out = await runRulePhase({
      session: sessionFor('x', { intent: 'X', state: 'S1' }),
      snapshot: snapshotOf({ rules: cycle }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });
    expect(out.passes).toBe(5);
    expect(ruleIds(out.audits, 'RULE_APPLIED (RulesStep)')).toEqual([11, 12, 11, 12, 11]);
    expect(out.session.state).toBe('S2');
    // The stop is said, after the last pass's rows: the rules were not done, the limit ended them.
    expect(out.audits.at(-1)).toMatchObject({
      stage: 'RULE_PASS_LIMIT_REACHED (RulesStep)',
      payload: {
        rulePhase: 'PRE_RESPONSE_RESOLUTION',
        ruleExecutionSource: 'RulesStep',
        maxPasses: 5,
        passStarts: ['S1', 'S2', 'S1', 'S2', 'S1'].map((state) => ({ intent: 'X', state })),
        intent: 'X',
        state: 'S2',
        reason: 'INTENT_OR_STATE_STILL_CHANGING',
      },
    });
  });

  it('writes no pass-limit row when the fifth pass leaves intent and state as they were', async () => {
    const chain = ['S1', 'S2', 'S3', 'S4', 'S5'].map((from, i) =>
      ruleRow({ ruleId: 21 + i, intentCode: 'X', stateCode: from, action: 'SET_STATE', actionValue: `S${i + 2}` })
    );
    const run = (rules: typeof chain) =>
      runRulePhase({
        session: sessionFor('x', { intent: 'X', state: 'S1' }),
        snapshot: snapshotOf({ rules }),
        phase: 'PRE_RESPONSE_RESOLUTION',
        source: 'RulesStep',
      });
    const five = await run(chain.slice(0, 4));
    expect([five.passes, five.session.state]).toEqual([5, 'S5']);
    expect(stages(five.audits).filter((s) => s.startsWith('RULE_PASS_LIMIT'))).toEqual([]);
    const six = await run(chain);
    expect([six.passes, six.session.state]).toEqual([5, 'S6']);
    expect(stages(six.audits).filter((s) => s.startsWith('RULE_PASS_LIMIT'))).toEqual([
      'RULE_PASS_LIMIT_REACHED (RulesStep)',
    ]);
  });

  it('audits one summary RULE_NO_MATCH when no rule is eligible, and per-rule misses otherwise', async () => {
    const none = await runRulePhase({
      session: sessionFor('x'),
      snapshot: snapshotOf({ rules }),
      phase: 'POST_AGENT_MCP',
      source: 'McpToolStep',
    });
    expect(stages(none.audits)).toEqual(['RULE_NO_MATCH (McpToolStep)']);
    expect(none.audits[0]?.payload['reason']).toBe('NO_ELIGIBLE_RULES');

    const miss = await runRulePhase({
      session: sessionFor('hello'),
      snapshot: snapshotOf({
        rules: [ruleRow({ ruleId: 5, matchPattern: '^bye$', action: 'SET_STATE', actionValue: 'Z' })],
      }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });
    expect(miss.audits[0]).toMatchObject({
      stage: 'RULE_NO_MATCH (RulesStep)',
      payload: { ruleId: 5, reason: 'TYPE_CONDITION_NOT_MET' },
    });
  });

  it('ignores disabled rules and rules of other phases; UNKNOWN is a literal scope', async () => {
    const mixed = [
      ruleRow({ ruleId: 21, enabled: false, action: 'SET_STATE', actionValue: 'A' }),
      ruleRow({ ruleId: 22, phase: 'POST_AGENT_MCP', action: 'SET_STATE', actionValue: 'B' }),
      ruleRow({
        ruleId: 23,
        intentCode: 'UNKNOWN',
        stateCode: 'ANY',
        action: 'SET_INPUT_PARAM',
        actionValue: 'unknown_rule',
      }),
    ];
    const out = await runRulePhase({
      session: sessionFor('x', { intent: 'FAQ', state: 'IDLE' }),
      snapshot: snapshotOf({ rules: mixed }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });
    expect(stages(out.audits)).toEqual(['RULE_NO_MATCH (RulesStep)']);
    expect(out.session.state).toBe('IDLE');
  });
});

describe('runRulePhase: legacy phases (D3, scenario 16)', () => {
  it('fires a row stored as AGENT_POST_MCP in POST_AGENT_MCP and audits the stored phase', async () => {
    const legacy = ruleRow({ ruleId: 31, dbPhase: 'AGENT_POST_MCP', action: 'SET_STATE', actionValue: 'DONE' });
    expect(legacy.phase).toBe('POST_AGENT_MCP');
    const out = await runRulePhase({
      session: sessionFor('x', { intent: 'A', state: 'S' }),
      snapshot: snapshotOf({ rules: [legacy] }),
      phase: 'POST_AGENT_MCP',
      source: 'McpToolStep',
    });
    expect(out.session.state).toBe('DONE');
    const applied = out.audits.find((a) => a.stage === 'RULE_APPLIED (McpToolStep)');
    expect(applied?.payload).toMatchObject({ rulePhase: 'POST_AGENT_MCP', ruleDbPhase: 'AGENT_POST_MCP' });
  });
});

describe('runRulePhase: rule types', () => {
  const typed = (ruleType: string, matchPattern: string) =>
    snapshotOf({ rules: [ruleRow({ ruleId: 61, ruleType, matchPattern, action: 'SET_STATE', actionValue: 'HIT' })] });
  const phaseRun = (snapshot: ReturnType<typeof typed>, text: string, context = {}) =>
    runRulePhase({
      session: sessionFor(text, { context }),
      snapshot,
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });

  it('EXACT is trimmed and case-insensitive; REGEX finds case-insensitively on the raw text', async () => {
    expect((await phaseRun(typed('EXACT', 'Hello There'), '  hello there ')).session.state).toBe('HIT');
    expect((await phaseRun(typed('EXACT', 'hello'), 'hello there')).session.state).toBe('UNKNOWN');
    // Java's equalsIgnoreCase: İ, I, i and ı are one letter, and Σ, σ and ς (a whole-string toLowerCase splits İ in two).
    expect((await phaseRun(typed('EXACT', 'İptal'), 'IPTAL')).session.state).toBe('HIT');
    expect((await phaseRun(typed('EXACT', 'ΟΔΟΣ'), 'οδοσ')).session.state).toBe('HIT');
    expect((await phaseRun(typed('REGEX', 'LOAN'), 'I need a loan now')).session.state).toBe('HIT');
    expect((await phaseRun(typed('REGEX', '(?i)\\bloan\\b'), 'loans')).session.state).toBe('UNKNOWN');
  });

  it('CONTEXT_JSON_PATH reads raw context; unknown types report TYPE_RESOLVER_MISSING', async () => {
    expect((await phaseRun(typed('CONTEXT_JSON_PATH', '$.a.b'), 'x', { a: { b: 0 } })).session.state).toBe('HIT');
    expect((await phaseRun(typed('CONTEXT_JSON_PATH', '$.a.c'), 'x', { a: { b: 0 } })).session.state).toBe('UNKNOWN');
    const foo = await phaseRun(typed('FOO', 'x'), 'x');
    expect(foo.audits[0]?.payload['reason']).toBe('TYPE_RESOLVER_MISSING');
  });
});
