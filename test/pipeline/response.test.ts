import { randomUUID } from 'node:crypto';
import { baseConfig } from '../support/base-config';
import { intentRow, responseRow, ruleRow, templateRow } from '../support/config-rows';
import { expectInOrder, PipelineHarness } from '../support/pipeline-harness';

/** Responses (reference §14 scenarios 53–54), with D11: `ANY` is a wildcard for intent too. */
describe('response resolution', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start();
  });
  afterAll(async () => h.stop());
  beforeEach(() => {
    h.llm.setScript([{ kind: 'INTENT', reply: { intent: null, confidence: 0 }, persistent: true }]);
    h.llm.clearRequests();
  });

  const states = ['S', 'S1', 'S2'].map((s, i) =>
    ruleRow({
      ruleId: 5300 + i,
      intentCode: 'X',
      stateCode: s,
      ruleType: 'EXACT',
      matchPattern: 'never said',
      action: 'SET_INPUT_PARAM',
      actionValue: 'n',
    })
  );
  const seeded = async (intentCode: string, stateCode: string, contextJson = {}) => {
    const id = randomUUID();
    await h.seedConversation(id, { intentCode, stateCode, contextJson });
    return id;
  };

  it('53 the exact state beats ANY whatever the priority; D11: an ANY-intent row serves other intents', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('X', 20), intentRow('Y', 21)],
        rules: states,
        responses: [
          responseRow({ intentCode: 'X', stateCode: 'ANY', priority: 1, exactText: 'generic' }),
          responseRow({ intentCode: 'X', stateCode: 'S', priority: 100, exactText: 'specific' }),
          responseRow({ intentCode: 'ANY', stateCode: 'S', priority: 1, exactText: 'any intent in S' }),
        ],
      })
    );
    expect((await h.turn({ conversationId: await seeded('X', 'S'), message: 'hey there' })).payload.value).toBe(
      'specific'
    );
    expect((await h.turn({ conversationId: await seeded('X', 'S1'), message: 'hey there' })).payload.value).toBe(
      'generic'
    );
    expect((await h.turn({ conversationId: await seeded('Y', 'S'), message: 'hey there' })).payload.value).toBe(
      'any intent in S'
    );
  });

  it('53 EXACT renders both template syntaxes; EXACT JSON gives a JSON payload', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('X', 20)],
        rules: states,
        responses: [
          responseRow({ intentCode: 'X', stateCode: 'S', exactText: 'Hello [[${context.customerId}]] / {{state}}' }),
          responseRow({ intentCode: 'X', stateCode: 'S1', outputFormat: 'JSON', exactText: '{"a":1}' }),
        ],
      })
    );
    const text = await h.turn({ conversationId: await seeded('X', 'S', { customerId: '42' }), message: 'hey there' });
    expect(text.payload).toEqual({ type: 'TEXT', value: 'Hello 42 / S' });
    const json = await h.turn({ conversationId: await seeded('X', 'S1'), message: 'hey there' });
    expect(json.payload).toEqual({ type: 'JSON', value: { a: 1 } });
    expect((await h.conversation(json.conversationId))?.lastAssistantJson).toEqual({ a: 1 });
  });

  it('EXACT JSON renders each value as JSON, so no value (a quote, a list, a number) breaks the reply; text that is not JSON is refused at load', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('X', 20)],
        rules: states,
        responses: [
          responseRow({
            intentCode: 'X',
            stateCode: 'S',
            outputFormat: 'JSON',
            exactText:
              '{"name": "{{context.name}}", "tags": {{context.tags}}, "n": {{context.n}}, "gone": {{context.gone}}}',
          }),
        ],
      })
    );
    const hostile = 'Ann "the admin", "role": "admin';
    const id = await seeded('X', 'S', { name: hostile, tags: ['a', 'b'], n: 3 });
    const reply = await h.turn({ conversationId: id, message: 'hey there' });
    expect(reply.payload).toEqual({ type: 'JSON', value: { name: hostile, tags: ['a', 'b'], n: 3, gone: null } });
    expect((await h.conversation(id))?.lastAssistantJson).toEqual({
      name: hostile,
      tags: ['a', 'b'],
      n: 3,
      gone: null,
    });
    const audits = await h.audits(id);
    expect(audits.find((a) => a.stage === 'EXACT_RESPONSE_RENDERING')?.payload).toMatchObject({
      missingVariables: ['context.gone'],
    });

    const refused = await h
      .configure(
        baseConfig({
          intents: [intentRow('X', 20)],
          rules: states,
          responses: [responseRow({ intentCode: 'X', stateCode: 'S', outputFormat: 'JSON', exactText: 'Thanks!' })],
        })
      )
      .catch((e: unknown) => e);
    expect(String((refused as Error).message)).toMatch(
      /ce_response\[\d+\]: exact_text is not a JSON object or array once each placeholder is taken as one JSON value/
    );
  });

  it('54 DERIVED TEXT: template + rendered derivation hint go to the LLM', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('X', 20)],
        rules: states,
        promptTemplates: [
          templateRow({
            intentCode: 'X',
            stateCode: 'S',
            outputFormat: 'TEXT',
            systemPrompt: 'Answer for {{intent}}.',
            userPrompt: 'Q: {{user_input}} ctx={{context}}',
          }),
        ],
        responses: [
          responseRow({
            intentCode: 'X',
            stateCode: 'S',
            responseType: 'DERIVED',
            derivationHint: 'Mention {{context.customerId}}.',
          }),
        ],
      })
    );
    h.llm.push([{ kind: 'RESP_TEXT', reply: 'Derived answer.' }]);
    const id = await seeded('X', 'S', { customerId: '42' });
    const result = await h.turn({ conversationId: id, message: 'hey there' });
    expect(result.payload).toEqual({ type: 'TEXT', value: 'Derived answer.' });
    const request = h.llm.requestsOf('RESP_TEXT')[0];
    expect(request?.system).toMatch(/^Answer for X\./);
    expect(request?.userText).toMatch(
      /^Q: hey there ctx=\{"customerId":"42",.*"intent_lock":\{"locked":false,"reason":null\}\}\n\nMention 42\.$/s
    );
    expectInOrder(await h.stages(id), [
      'RESOLVE_RESPONSE',
      'RESOLVE_RESPONSE_SELECTED',
      'RESOLVE_RESPONSE_LLM_INPUT',
      'RESOLVE_RESPONSE_LLM_OUTPUT',
      'ASSISTANT_OUTPUT',
    ]);
    const input = (await h.audits(id)).find((a) => a.stage === 'RESOLVE_RESPONSE_LLM_INPUT');
    expect(input?.payload).toMatchObject({
      derivation_hint: 'Mention 42.',
      session: { intent: 'X', state: 'S', customerId: '42' },
    });
  });

  it('54 DERIVED without a template for the current state fails the turn', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('X', 20)],
        rules: states,
        promptTemplates: [templateRow({ intentCode: 'X', stateCode: 'S1', outputFormat: 'TEXT' })],
        responses: [responseRow({ intentCode: 'X', stateCode: 'ANY', responseType: 'DERIVED' })],
      })
    );
    const error = await h
      .turn({ conversationId: await seeded('X', 'S2'), message: 'hey there' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'PROMPT_TEMPLATE_MISSING', nonRetryable: true });
  });

  it('54 DERIVED JSON: the payload is the JSON, and its intent/state move the conversation', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('X', 20)],
        rules: states,
        promptTemplates: [templateRow({ intentCode: 'X', stateCode: 'S', outputFormat: 'JSON' })],
        responses: [
          responseRow({
            intentCode: 'X',
            stateCode: 'S',
            responseType: 'DERIVED',
            outputFormat: 'JSON',
            jsonSchema: { type: 'object', required: ['answer'], properties: { answer: { type: 'string' } } },
          }),
        ],
      })
    );
    h.llm.push([{ kind: 'RESP_JSON', reply: { answer: 'ok', state: 'DONE', intent: 'FAQ' } }]);
    const id = await seeded('X', 'S');
    const result = await h.turn({ conversationId: id, message: 'hey there' });
    expect(result).toMatchObject({
      intent: 'FAQ',
      state: 'DONE',
      payload: { type: 'JSON', value: { answer: 'ok', state: 'DONE', intent: 'FAQ' } },
    });
    expect(await h.conversation(id)).toMatchObject({
      intentCode: 'FAQ',
      stateCode: 'DONE',
      lastAssistantJson: { answer: 'ok', state: 'DONE', intent: 'FAQ' },
    });
  });

  it('54 a prompt variable that does not resolve fails the turn with UNRESOLVED_PROMPT_VARIABLE; an unknown name is refused at load', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('X', 20)],
        rules: states,
        promptTemplates: [
          templateRow({
            intentCode: 'X',
            stateCode: 'S',
            outputFormat: 'TEXT',
            userPrompt: 'Customer {{context.customerId}}',
          }),
        ],
        responses: [responseRow({ intentCode: 'X', stateCode: 'S', responseType: 'DERIVED' })],
      })
    );
    const error = await h
      .turn({ conversationId: await seeded('X', 'S'), message: 'hey there' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'UNRESOLVED_PROMPT_VARIABLE', nonRetryable: true });
    expect(String((error as Error).message)).toMatch(/context\.customerId/);

    const refused = await h
      .configure(
        baseConfig({
          promptTemplates: [
            templateRow({
              intentCode: 'GREETING',
              stateCode: 'IDLE',
              outputFormat: 'TEXT',
              userPrompt: '{{unknown_var}}',
            }),
          ],
        })
      )
      .catch((e: unknown) => e);
    expect(String((refused as Error).message)).toMatch(/unknown variable \{\{unknown_var\}\}/);
  });
});
