import type { JsonObject } from '../../../core/json';
import type { RulePhase } from '../../../core/rules/phase';
import { runRulePhase } from '../../../core/rules';
import { createTaskRegistry } from '../../../core/tasks/registry';
import { ruleRow, sessionFor, snapshotOf } from '../../support/config-rows';

const stages = (audits: readonly { stage: string }[]) => audits.map((a) => a.stage);
const ruleIds = (audits: readonly { stage: string; payload: Record<string, unknown> }[], stage: string) =>
  audits.filter((a) => a.stage === stage).map((a) => a.payload['ruleId']);

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

describe('runRulePhase: actions (scenario 19)', () => {
  const run = async (action: string, actionValue: string | null, extra: Parameters<typeof sessionFor>[1] = {}) =>
    runRulePhase({
      session: sessionFor('go', { intent: 'A', state: 'S', ...extra }),
      snapshot: snapshotOf({ rules: [ruleRow({ ruleId: 41, action, actionValue })] }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
      tasks: createTaskRegistry({
        bean: {
          m1: ({ session }) => {
            session.inputParams['m1'] = true;
            return 'one';
          },
          m2: ({ session }) => {
            session.inputParams['m2'] = true;
            return 'two';
          },
        },
      }),
    });

  it.each([
    ['{"a":1,"b":"x"}', { a: 1, b: 'x' }],
    ['[{"key":"k","value":true}]', { k: true }],
    ['{"key":"kk","value":[1]}', { kk: [1] }],
    ['n:42', { n: 42 }],
    ['d:1.5', { d: 1.5 }],
    ['z:null', { z: null }],
    ['s:text value', { s: 'text value' }],
    ['flag', { flag: true }],
  ])('SET_INPUT_PARAM %s', async (value, expected) => {
    const out = await run('SET_INPUT_PARAM', value);
    expect(out.session.inputParams).toMatchObject(expected);
    const audit = out.audits.find((a) => a.stage === 'SET_INPUT_PARAM');
    expect(audit?.payload['appliedInputParams']).toEqual(expected);
  });

  it('SET_JSON copies the first match, and does nothing (no audit) without a match', async () => {
    const hit = await run('SET_JSON', 'followups:$.inputParams.followups', {
      inputParams: { followups: ['q1', 'q2'] },
    });
    expect(hit.session.inputParams['followups']).toEqual(['q1', 'q2']);
    expect(hit.audits.find((a) => a.stage === 'SET_JSON')?.payload).toMatchObject({
      key: 'followups',
      value: ['q1', 'q2'],
    });
    const miss = await run('SET_JSON', 'x:$.inputParams.nothing');
    expect(miss.session.inputParams['x']).toBeUndefined();
    expect(stages(miss.audits)).not.toContain('SET_JSON');
  });

  it('GET_SESSION, GET_CONTEXT and GET_SCHEMA_JSON copy into input params', async () => {
    const snap = await run('GET_SESSION', 'snap', { context: { a: 1 } });
    expect(snap.session.inputParams['snap']).toMatchObject({ intent: 'A', state: 'S', context: { a: 1 } });
    const ctx = await run('GET_CONTEXT', null, { context: { a: 1 } });
    expect(ctx.session.inputParams['context']).toEqual({ a: 1 });
    const schema = await run('GET_SCHEMA_JSON', '');
    expect(schema.session.inputParams['schema_json']).toEqual({});
  });

  it('SET_INTENT, SET_STATE and SET_DIALOGUE_ACT', async () => {
    const intent = await run('SET_INTENT', 'B');
    expect(intent.session.intent).toBe('B');
    expect(intent.audits.find((a) => a.stage === 'SET_INTENT')?.payload).toMatchObject({
      fromIntent: 'A',
      toIntent: 'B',
    });
    const act = await run(
      'SET_DIALOGUE_ACT',
      '{"dialogueAct":"EDIT","source":"POST_DIALOGUE_ACT_RULE","standaloneQuery":"q"}'
    );
    expect(act.session.inputParams).toMatchObject({
      dialogue_act: 'EDIT',
      dialogue_act_source: 'POST_DIALOGUE_ACT_RULE',
      standalone_query: 'q',
    });
    expect(act.session.standaloneQuery).toBe('q');
    const plain = await run('SET_DIALOGUE_ACT', 'affirm');
    expect(plain.session.inputParams['dialogue_act']).toBe('AFFIRM');
  });

  it('SET_TASK invokes every listed method; a missing one is recorded, not fatal', async () => {
    const out = await run('SET_TASK', 'bean:m1,m2,m3');
    expect(out.session.inputParams).toMatchObject({ m1: true, m2: true });
    expect(out.audits.find((a) => a.stage === 'SET_TASK')?.payload['results']).toEqual([
      { method: 'm1', status: 'OK', result: 'one' },
      { method: 'm2', status: 'OK', result: 'two' },
      { method: 'm3', status: 'MISSING' },
    ]);
  });

  it('an unknown action is matched and applied without any change', async () => {
    const out = await run('NOT_AN_ACTION', 'x');
    expect(stages(out.audits)).toEqual(['RULE_MATCH (RulesStep)', 'RULE_APPLIED (RulesStep)']);
    expect(out.audits[1]?.payload['actionResolved']).toBe(false);
    expect(out.session.state).toBe('S');
  });

  it('writes the execution markers into input params', async () => {
    const out = await run('SET_STATE', 'T');
    expect(out.session.inputParams).toMatchObject({
      rule_execution_source: 'RulesStep',
      rule_execution_origin: 'RULES_STEP',
      rule_phase: 'PRE_RESPONSE_RESOLUTION',
      post_intent_rule: false,
    });
  });
});

describe('runRulePhase: SHORT_CIRCUIT (D5, scenario 20 adapted)', () => {
  const rules = (value: string | null) => [
    ruleRow({ ruleId: 51, action: 'SHORT_CIRCUIT', actionValue: value }),
    ruleRow({ ruleId: 52, action: 'SET_STATE', actionValue: 'NEVER' }),
  ];

  it('answers with the rendered action value and ends evaluation', async () => {
    const out = await runRulePhase({
      session: sessionFor('x', { intent: 'A', state: 'S', context: { who: 'Ann' } }),
      snapshot: snapshotOf({ rules: rules('Hello {{context.who}} in {{state}}') }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });
    expect(out.stop).toEqual({ reason: 'SHORT_CIRCUIT', payload: { type: 'TEXT', value: 'Hello Ann in S' } });
    expect(stages(out.audits)).toEqual(['RULE_MATCH (RulesStep)', 'SHORT_CIRCUIT', 'RULE_APPLIED (RulesStep)']);
    expect(out.session.state).toBe('S');
  });

  it('falls back to context.mcp.finalAnswer, and continues when there is nothing to answer', async () => {
    const withAnswer = await runRulePhase({
      session: sessionFor('x', { context: { mcp: { finalAnswer: 'MOVED' } } }),
      snapshot: snapshotOf({ rules: rules(null) }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });
    expect(withAnswer.stop?.payload).toEqual({ type: 'TEXT', value: 'MOVED' });

    const without = await runRulePhase({
      session: sessionFor('x'),
      snapshot: snapshotOf({ rules: rules('') }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });
    expect(without.stop).toBeUndefined();
    expect(without.session.state).toBe('NEVER');
    expect(without.audits.find((a) => a.stage === 'SHORT_CIRCUIT')?.payload['answered']).toBe(false);
  });

  // Seed "stale move ID bug": a rule before this turn's planner sees the last turn's output (and matches on it, as in
  // Java), but ends the turn before McpPrepare clears it; its answer never says it.
  describe("before this turn's planner or direct tool: never an earlier turn's output", () => {
    const lastTurn = {
      mcp: {
        finalAnswer: 'The status of your move for connection CON1388 is MOVED.',
        observations: [{ toolCode: 'postgres.move_status', args: {}, status: 'SUCCESS', result: { rowCount: 1 } }],
        toolExecution: { status: 'SUCCESS', result: { mapped: { orderId: 'ORD-7017', status: 'SUBMITTED' } } },
      },
    };
    const phaseRun = (phase: RulePhase, value: string | null) =>
      runRulePhase({
        session: sessionFor('and CON1128?', { intent: 'A', state: 'S', context: structuredClone(lastTurn) }),
        snapshot: snapshotOf({ rules: rules(value).map((r) => ({ ...r, phase, dbPhase: phase })) }),
        phase,
        source: 'McpToolStep PreMcp',
      });

    it.each(['PRE_AGENT_MCP', 'POST_TOOL_EXECUTION', 'POST_CLASSIFIER_INTENT'] as const)(
      'an empty value does not answer with the last answer (%s): the turn goes on, audited EARLIER_TURN_ANSWER',
      async (phase) => {
        const out = await phaseRun(phase, null);
        expect(out.stop).toBeUndefined();
        expect(out.session.state).toBe('NEVER');
        expect(out.audits.find((a) => a.stage === 'SHORT_CIRCUIT')?.payload).toEqual({
          ruleId: 51,
          answered: false,
          source: 'MCP_FINAL_ANSWER',
          reason: 'EARLIER_TURN_ANSWER',
        });
        // Rules still see it, and the session is not changed by the answer's view of it.
        expect((out.session.context['mcp'] as JsonObject)['finalAnswer']).toBe(lastTurn.mcp.finalAnswer);
      }
    );

    it.each([
      ['PRE_AGENT_MCP', 'Last time: {{context.mcp.finalAnswer}}'],
      ['PRE_AGENT_MCP', 'Rows: {{context.mcp.observations[0].result.rowCount}}'],
      ['POST_SCHEMA_EXTRACTION', 'Order {{context.mcp.toolExecution.result.mapped.orderId}} is SUBMITTED.'],
    ] as const)('a value reading it fails the turn instead of repeating it (%s: %s)', async (phase, value) => {
      await expect(phaseRun(phase, value)).rejects.toMatchObject({ type: 'UNRESOLVED_PROMPT_VARIABLE' });
    });

    it("answers with this turn's output: the direct tool's from POST_TOOL_EXECUTION, the planner's after it", async () => {
      const tool = await phaseRun('POST_TOOL_EXECUTION', 'Order {{context.mcp.toolExecution.result.mapped.orderId}}.');
      expect(tool.stop?.payload).toEqual({ type: 'TEXT', value: 'Order ORD-7017.' });
      const planner = await phaseRun('POST_AGENT_MCP', null);
      expect(planner.stop?.payload).toEqual({ type: 'TEXT', value: lastTurn.mcp.finalAnswer });
    });
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
