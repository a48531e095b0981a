import { randomUUID } from 'node:crypto';
import { baseConfig } from '../support/base-config';
import { classifierRow, intentRow, responseRow, ruleRow } from '../support/config-rows';
import { expectInOrder, freshLlmScriptPerTest, PipelineHarness } from '../support/pipeline-harness';

const LOAN = 'LOAN_APPLICATION';

describe('intent resolution: classifier and agent (reference §14 scenarios 11–13)', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start();
  });
  afterAll(async () => h.stop());
  freshLlmScriptPerTest(() => h);

  const classifierConfig = (phase: string) =>
    baseConfig({
      intents: [intentRow(LOAN, 20)],
      classifiers: [classifierRow({ intentCode: LOAN, stateCode: 'UNKNOWN', pattern: '(?i)\\bloan\\b' })],
      rules: [
        ruleRow({
          ruleId: 11,
          phase,
          intentCode: LOAN,
          stateCode: 'UNKNOWN',
          action: 'SET_STATE',
          actionValue: 'ELIGIBILITY_GATE',
        }),
      ],
      responses: [responseRow({ intentCode: LOAN, stateCode: 'ELIGIBILITY_GATE', exactText: 'Please share details.' })],
    });

  it('11 classifier match runs POST_CLASSIFIER_INTENT rules, no agent call', async () => {
    await h.configure(classifierConfig('POST_CLASSIFIER_INTENT'));
    const result = await h.turn({ message: 'I need a loan' });
    expect(result).toMatchObject({
      intent: LOAN,
      state: 'ELIGIBILITY_GATE',
      payload: { value: 'Please share details.' },
    });
    const stages = await h.stages(result.conversationId);
    expectInOrder(stages, [
      'INTENT_CLASSIFICATION_MATCHED',
      'RULE_MATCH (IntentResolutionStep Classifier)',
      'SET_STATE',
      'RULE_APPLIED (IntentResolutionStep Classifier)',
      'INTENT_RESOLVED_BY_CLASSIFIER',
    ]);
    expect(stages.filter((s) => s.startsWith('INTENT_AGENT_'))).toEqual([]);
    const matched = (await h.audits(result.conversationId)).find((a) => a.stage === 'INTENT_CLASSIFICATION_MATCHED');
    expect(matched?.payload['state']).toBe('UNKNOWN');
  });

  it('11 (D4) a POST_AGENT_INTENT rule also fires after a classifier match, after POST_CLASSIFIER_INTENT', async () => {
    await h.configure(classifierConfig('POST_AGENT_INTENT'));
    const result = await h.turn({ message: 'I need a loan' });
    expect(result).toMatchObject({ intent: LOAN, state: 'ELIGIBILITY_GATE' });
    expectInOrder(await h.stages(result.conversationId), [
      'INTENT_CLASSIFICATION_MATCHED',
      'RULE_NO_MATCH (IntentResolutionStep Classifier)',
      'RULE_MATCH (IntentResolutionStep PostIntent)',
      'SET_STATE',
      'RULE_APPLIED (IntentResolutionStep PostIntent)',
      'INTENT_RESOLVED_BY_CLASSIFIER',
    ]);
  });

  it('12 a classifier collision goes to the agent', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow(LOAN, 20)],
        classifiers: [
          classifierRow({ intentCode: 'FAQ', stateCode: 'IDLE', pattern: 'help', priority: 1 }),
          classifierRow({ intentCode: LOAN, stateCode: 'IDLE', pattern: 'loan', priority: 2 }),
        ],
        responses: [responseRow({ intentCode: LOAN, stateCode: 'IDLE', exactText: 'Loan it is.' })],
      })
    );
    h.llm.push([
      {
        kind: 'INTENT',
        reply: { intent: LOAN, state: 'IDLE', confidence: 0.9, intentScores: [{ intent: LOAN, confidence: 0.9 }] },
      },
    ]);
    const result = await h.turn({ message: 'help me with a loan' });
    expect(result).toMatchObject({ intent: LOAN, state: 'IDLE', payload: { value: 'Loan it is.' } });
    const audits = await h.audits(result.conversationId);
    expect(audits.find((a) => a.stage === 'INTENT_CLASSIFIER_COLLISION')?.payload['matchedIntents']).toEqual([
      'FAQ',
      LOAN,
    ]);
    expectInOrder(
      audits.map((a) => a.stage),
      ['INTENT_CLASSIFIER_COLLISION', 'INTENT_AGENT_LLM_INPUT', 'INTENT_AGENT_ACCEPTED', 'INTENT_RESOLVED_BY_AGENT']
    );
  });

  it('13 an accepted agent answer runs POST_AGENT_INTENT rules with origin AGENT_INTENT_RESOLVER', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('MOVE_CONNECTIONS', 20)],
        rules: [
          ruleRow({
            phase: 'POST_AGENT_INTENT',
            intentCode: 'MOVE_CONNECTIONS',
            stateCode: 'IDLE',
            action: 'SET_STATE',
            actionValue: 'MOVE_STATUS',
          }),
        ],
        responses: [
          responseRow({ intentCode: 'MOVE_CONNECTIONS', stateCode: 'MOVE_STATUS', exactText: 'Checking your move.' }),
        ],
      })
    );
    h.llm.push([
      {
        kind: 'INTENT',
        reply: {
          intent: 'MOVE_CONNECTIONS',
          state: 'IDLE',
          confidence: 0.92,
          needsClarification: false,
          clarificationResolved: false,
          clarificationQuestion: '',
          intentScores: [{ intent: 'MOVE_CONNECTIONS', confidence: 0.92 }],
          followups: [],
        },
      },
    ]);
    const result = await h.turn({ message: 'what is the status of my move' });
    expect(result).toMatchObject({
      intent: 'MOVE_CONNECTIONS',
      state: 'MOVE_STATUS',
      payload: { value: 'Checking your move.' },
    });
    const audits = await h.audits(result.conversationId);
    expectInOrder(
      audits.map((a) => a.stage),
      [
        'INTENT_AGENT_LLM_INPUT',
        'INTENT_AGENT_LLM_OUTPUT',
        'INTENT_AGENT_SCORES',
        'RULE_MATCH (AgentIntentResolver)',
        'SET_STATE',
        'RULE_APPLIED (AgentIntentResolver)',
        'INTENT_AGENT_ACCEPTED',
        'INTENT_RESOLVED_BY_AGENT',
      ]
    );
    expect(audits.find((a) => a.stage === 'INTENT_AGENT_ACCEPTED')?.payload['state']).toBe('MOVE_STATUS');
    expect(audits.find((a) => a.stage === 'RULE_MATCH (AgentIntentResolver)')?.payload['ruleExecutionOrigin']).toBe(
      'AGENT_INTENT_RESOLVER'
    );
  });

  it('13 (§4.3 step 8) an accepted answer that still asks a question leaves it pending, so MCP skips', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('RENEW_LOAN', 20)],
        responses: [responseRow({ intentCode: 'RENEW_LOAN', stateCode: 'IDLE', exactText: 'Renewing.' })],
      })
    );
    h.llm.push([
      {
        kind: 'INTENT',
        reply: { intent: 'RENEW_LOAN', state: 'IDLE', confidence: 0.8, clarificationQuestion: 'Which book?' },
      },
    ]);
    const result = await h.turn({ message: 'extend my loan' });
    expect(result).toMatchObject({ intent: 'RENEW_LOAN', state: 'IDLE', payload: { value: 'Renewing.' } });
    expect(result.context['pending_clarification']).toEqual({ question: 'Which book?', reason: 'AGENT' });
    expectInOrder(await h.stages(result.conversationId), [
      'INTENT_AGENT_ACCEPTED',
      'MCP_SKIPPED_PENDING_CLARIFICATION',
    ]);
  });

  it('an intent the model wrote in lower case is stored as configured; a state no rule declares moves nothing', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('RENEW_LOAN', 20)],
        responses: [responseRow({ intentCode: 'RENEW_LOAN', stateCode: 'ANY', exactText: 'Renewing.' })],
      })
    );
    h.llm.push([{ kind: 'INTENT', reply: { intent: 'renew_loan', state: 'COMPLETED', confidence: 0.8 } }]);
    const result = await h.turn({ message: 'extend my loan' });
    expect(result).toMatchObject({ intent: 'RENEW_LOAN', state: 'UNKNOWN', payload: { value: 'Renewing.' } });
    const accepted = (await h.audits(result.conversationId)).find((a) => a.stage === 'INTENT_AGENT_ACCEPTED');
    expect(accepted?.payload).toMatchObject({ intent: 'RENEW_LOAN', state: 'UNKNOWN', agentStateIgnored: 'COMPLETED' });
  });

  it('a clarification that names an unknown intent and state keeps the conversation where it was', async () => {
    await h.configure(baseConfig({ intents: [intentRow('RENEW_LOAN', 20)] }));
    h.llm.push([
      {
        kind: 'INTENT',
        reply: { intent: 'EVIL_INTENT', state: 'EVIL_STATE', needsClarification: true, clarificationQuestion: 'Hm?' },
      },
    ]);
    const result = await h.turn({ message: 'extend my loan' });
    expect(result).toMatchObject({ intent: 'UNKNOWN', state: 'UNKNOWN' });
    const asked = (await h.audits(result.conversationId)).find((a) => a.stage === 'INTENT_AGENT_NEEDS_CLARIFICATION');
    expect(asked?.payload).toMatchObject({ agentIntentIgnored: 'EVIL_INTENT', agentStateIgnored: 'EVIL_STATE' });
  });

  describe('the intent agent keeps the current state unless the intent changes (issue 14 item 4)', () => {
    // Mid-flow: the details are collected and the user is asked to confirm (no schema in this state,
    // so intent resolution runs and the agent is asked).
    const confirming = () =>
      baseConfig({
        intents: [intentRow(LOAN, 20)],
        rules: [
          ruleRow({
            intentCode: LOAN,
            stateCode: 'CONFIRMATION',
            ruleType: 'EXACT',
            matchPattern: 'never-said',
            action: 'SET_STATE',
            actionValue: 'IDLE',
          }),
        ],
        responses: [
          responseRow({ intentCode: LOAN, stateCode: 'CONFIRMATION', exactText: 'Shall I submit it?' }),
          responseRow({ intentCode: LOAN, stateCode: 'IDLE', exactText: 'Restarted.' }),
        ],
      });
    const midFlow = async () => {
      const id = randomUUID();
      await h.seedConversation(id, { intentCode: LOAN, stateCode: 'CONFIRMATION', contextJson: {} });
      return id;
    };

    it('a scripted model that follows the default prompt literally keeps the flow in its state', async () => {
      await h.configure(confirming());
      h.llm.push([
        {
          kind: 'INTENT',
          // Answers only a prompt that tells it, in words, to keep the current state.
          match: `keep the current state "CONFIRMATION" when the\nintent stays "${LOAN}"`,
          reply: { intent: LOAN, state: 'CONFIRMATION', confidence: 0.9 },
        },
      ]);
      const id = await midFlow();
      const result = await h.turn({ conversationId: id, message: 'what happens next with my loan?' });
      expect(result).toMatchObject({
        intent: LOAN,
        state: 'CONFIRMATION',
        payload: { value: 'Shall I submit it?' },
      });
      const prompt = h.llm.requestsOf('INTENT')[0]?.system ?? '';
      expect(prompt).toContain(`currently in intent "${LOAN}", state "CONFIRMATION"`);
      expect(prompt).toContain('"IDLE" only when the intent changes');
    });

    it('a model that still answers IDLE for the same intent does not reset the flow', async () => {
      await h.configure(confirming());
      h.llm.push([{ kind: 'INTENT', reply: { intent: LOAN, state: 'IDLE', confidence: 0.9 } }]);
      const id = await midFlow();
      const result = await h.turn({ conversationId: id, message: 'what happens next with my loan?' });
      expect(result).toMatchObject({ intent: LOAN, state: 'CONFIRMATION', payload: { value: 'Shall I submit it?' } });
      const accepted = (await h.audits(id)).find((a) => a.stage === 'INTENT_AGENT_ACCEPTED');
      expect(accepted?.payload).toMatchObject({ state: 'CONFIRMATION', stateKept: true, agentState: 'IDLE' });
    });
  });
});
