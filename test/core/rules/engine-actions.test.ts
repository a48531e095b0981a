import { runRulePhase } from '../../../core/rules';
import { createTaskRegistry } from '../../../core/tasks/registry';
import { ruleRow, sessionFor, snapshotOf } from '../../support/config-rows';
import { stages } from './rule-audits';

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

  it.each(['[{"key":"__proto__","value":{"x":1}}]', '{"key":"__proto__","value":{"x":1}}', '{"__proto__":{"x":1}}'])(
    'SET_INPUT_PARAM %s sets a param named __proto__, never the prototype of the params',
    async (value) => {
      const params = (await run('SET_INPUT_PARAM', value)).session.inputParams;
      expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
      expect(Object.hasOwn(params, '__proto__') && params['__proto__']).toEqual({ x: 1 });
      expect(params['x']).toBeUndefined();
    }
  );

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
