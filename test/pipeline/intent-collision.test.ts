import { randomUUID } from 'node:crypto';
import { baseConfig } from '../support/base-config';
import { intentRow, responseRow, ruleRow, schemaRow, templateRow } from '../support/config-rows';
import { expectInOrder, freshLlmScriptPerTest, PipelineHarness } from '../support/pipeline-harness';

const LOAN = 'LOAN_APPLICATION';

describe('intent resolution: collisions and the intent lock (reference §14 scenarios 14–15)', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start();
  });
  afterAll(async () => h.stop());
  freshLlmScriptPerTest(() => h);

  const collisionAnswer = {
    intent: '',
    confidence: 0,
    intentScores: [
      { intent: 'FAQ', confidence: 0.61 },
      { intent: LOAN, confidence: 0.55 },
    ],
    followups: [],
  };

  it('14 near-equal scores become a collision question answered by the collision LLM', async () => {
    await h.configure(baseConfig({ intents: [intentRow(LOAN, 20)] }));
    h.llm.push([
      { kind: 'INTENT', reply: collisionAnswer },
      { kind: 'COLLISION', reply: 'Do you have a question, or do you want to apply for a loan?' },
    ]);
    const result = await h.turn({ message: 'tell me about loans' });
    expect(result).toMatchObject({
      intent: 'FAQ',
      state: 'INTENT_COLLISION',
      payload: { type: 'TEXT', value: 'Do you have a question, or do you want to apply for a loan?' },
    });
    expect(result.context['pending_clarification']).toEqual({
      question: 'Did you mean Faq or Loan Application?',
      reason: 'AGENT',
    });
    const stages = await h.stages(result.conversationId);
    expectInOrder(stages, [
      'INTENT_AGENT_COLLISION',
      'INTENT_AGENT_NEEDS_CLARIFICATION',
      'MCP_SKIPPED_PENDING_CLARIFICATION',
      'INTENT_COLLISION_DETECTED',
      'INTENT_COLLISION_RESOLVED',
    ]);
    expect(stages).not.toContain('ASSISTANT_OUTPUT');
    expect(h.llm.requestsOf('COLLISION')[0]?.userText).toMatch(/tell me about loans/);
  });

  it('14 variant: a schema-driven intent suppresses the clarification; the reply still takes the collision path', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow(LOAN, 20)],
        outputSchemas: [
          schemaRow({
            intentCode: 'FAQ',
            stateCode: 'IDLE',
            jsonSchema: { type: 'object', properties: { topic: { type: 'string' } } },
          }),
        ],
        promptTemplates: [templateRow({ intentCode: 'FAQ', stateCode: 'IDLE', outputFormat: 'SCHEMA_JSON' })],
      })
    );
    h.llm.push([
      { kind: 'INTENT', reply: collisionAnswer },
      { kind: 'COLLISION', reply: 'Which one?' },
    ]);
    const result = await h.turn({ message: 'tell me about loans' });
    expect(result).toMatchObject({ intent: 'FAQ', state: 'INTENT_COLLISION', payload: { value: 'Which one?' } });
    const audits = await h.audits(result.conversationId);
    expectInOrder(
      audits.map((a) => a.stage),
      [
        'INTENT_AGENT_COLLISION',
        'INTENT_AGENT_CLARIFICATION_SUPPRESSED_SCHEMA_FLOW',
        'INTENT_AGENT_ACCEPTED',
        'INTENT_COLLISION_DETECTED',
      ]
    );
    expect(audits.find((a) => a.stage === 'INTENT_AGENT_ACCEPTED')?.payload['confidence']).toBe(0.61);
  });

  it('15 a locked intent skips resolution while its schema is collected', async () => {
    const schema = { type: 'object', properties: { customerId: { type: 'string' } }, required: ['customerId'] };
    await h.configure(
      baseConfig({
        intents: [intentRow(LOAN, 20)],
        rules: [
          ruleRow({
            intentCode: LOAN,
            stateCode: 'ELIGIBILITY_GATE',
            ruleType: 'EXACT',
            matchPattern: 'never-said',
            action: 'SET_INPUT_PARAM',
            actionValue: 'x',
          }),
        ],
        outputSchemas: [schemaRow({ intentCode: LOAN, stateCode: 'ELIGIBILITY_GATE', jsonSchema: schema })],
        promptTemplates: [
          templateRow({ intentCode: LOAN, stateCode: 'ELIGIBILITY_GATE', outputFormat: 'SCHEMA_JSON' }),
        ],
        responses: [
          responseRow({ intentCode: LOAN, stateCode: 'ELIGIBILITY_GATE', exactText: 'What is the customer id?' }),
        ],
      })
    );
    const id = randomUUID();
    await h.seedConversation(id, {
      intentCode: LOAN,
      stateCode: 'ELIGIBILITY_GATE',
      contextJson: { intent_lock: { locked: true, reason: 'SCHEMA_INCOMPLETE' } },
    });
    h.llm.push([{ kind: 'SCHEMA', reply: { customerId: null } }]);
    const result = await h.turn({ conversationId: id, message: 'hi' });
    expect(result).toMatchObject({
      intent: LOAN,
      state: 'ELIGIBILITY_GATE',
      payload: { value: 'What is the customer id?' },
    });
    expect(result.context).toMatchObject({
      intent_lock: { locked: true, reason: 'SCHEMA_INCOMPLETE' },
      mcp: { lifecycle: { status: 'SKIPPED_SCHEMA_INCOMPLETE' } },
    });
    const audits = await h.audits(id);
    expect(audits.find((a) => a.stage === 'INTENT_RESOLVE_SKIPPED_SCHEMA_COLLECTION')?.payload).toMatchObject({
      intentLocked: true,
      intentLockReason: 'SCHEMA_INCOMPLETE',
    });
    expect(
      audits.map((a) => a.stage).filter((s) => s.startsWith('INTENT_CLASSIF') || s.startsWith('INTENT_AGENT'))
    ).toEqual([]);
  });
});
