import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { ConfigRows } from '../../core/config/types';
import { loanConfirmationPack } from '../../db/seed/packs/loan-confirmation';
import { ceLlmCallLog } from '../../db/schema';
import { baseConfig, UNKNOWN_REPLY } from '../support/base-config';
import { configRow, intentRow, responseRow, ruleRow, templateRow } from '../support/config-rows';
import { PipelineHarness } from '../support/pipeline-harness';

/** Every kind of bad model answer is rejected, falls back or is taken in part, with a specific reason; none crashes a turn silently. */
describe('bad LLM output', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start();
  });
  afterAll(async () => h.stop());
  beforeEach(async () => {
    h.llm.setScript([]);
    h.llm.clearRequests();
    await h.configure(baseConfig({ intents: [intentRow('LOAN_APPLICATION', 20)] }));
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  const rejection = async (reply: unknown) => {
    h.llm.push([{ kind: 'INTENT', reply }]);
    const result = await h.turn({ message: 'qwerty' });
    expect(result).toMatchObject({ intent: 'UNKNOWN', state: 'UNKNOWN', payload: { value: UNKNOWN_REPLY } });
    const audits = await h.audits(result.conversationId);
    const log = await h.tdb.db
      .select()
      .from(ceLlmCallLog)
      .where(eq(ceLlmCallLog.conversationId, result.conversationId));
    return { reason: audits.find((a) => a.stage === 'INTENT_AGENT_REJECTED')?.payload['reason'], log };
  };

  it('not JSON: rejected as "invalid json" and logged as an unsuccessful call', async () => {
    const { reason, log } = await rejection('Sure! The intent is probably FAQ.');
    expect(reason).toBe('invalid json');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      callKind: 'INTENT',
      success: false,
      errorMessage: 'invalid output: invalid json',
      responseText: 'Sure! The intent is probably FAQ.',
    });
  });

  it('wrong types: rejected with the schema mismatch', async () => {
    const { reason } = await rejection({ intent: 'FAQ', confidence: 'very high', needsClarification: 'no' });
    expect(reason).toMatch(/^invalid output: schema mismatch: .*\/confidence must be number,null/);
  });

  it('intent not allowed: rejected', async () => {
    const { reason } = await rejection({
      intent: 'REFUND',
      confidence: 0.99,
      intentScores: [{ intent: 'REFUND', confidence: 0.99 }],
    });
    expect(reason).toBe('Intent not in allowed intents');
  });

  it('blank clarification question: rejected', async () => {
    const { reason } = await rejection({
      intent: 'FAQ',
      confidence: 0.9,
      needsClarification: true,
      clarificationQuestion: '   ',
      followups: [],
    });
    expect(reason).toBe('needsClarification without question');
  });

  it('a schema extraction with a field of the wrong kind keeps the others (§5.1); only that field stays missing', async () => {
    const rows = loanConfirmationPack.rows as Partial<ConfigRows>;
    await h.configure({ ...rows, configs: [configRow('DialogueActStep', 'RESOLUTE_MODE', 'REGEX_ONLY')] });
    h.llm.push([
      { kind: 'SCHEMA', reply: { customerId: 1234, requestedAmount: 'a lot', tenureMonths: 24 } },
      { kind: 'RESP_TEXT', reply: 'What amount?' },
    ]);
    const result = await h.turn({ message: 'a loan please' });
    expect(result.state).toBe('ELIGIBILITY_GATE');
    expect(result.context).toMatchObject({ customerId: '1234', tenureMonths: 24 });
    expect(result.context['requestedAmount']).toBeUndefined();
    const output = (await h.audits(result.conversationId)).find((a) => a.stage === 'SCHEMA_EXTRACTION_LLM_OUTPUT');
    expect(output?.payload).toMatchObject({
      valid: false,
      error: expect.stringMatching(/schema mismatch/),
      dropped: [{ field: 'requestedAmount', reason: 'must be number,null' }],
      converted: [{ field: 'customerId', from: 1234, to: '1234' }],
    });
  });

  /** A conversation in X/S, whose reply is a DERIVED response in `outputFormat`. */
  const derivedConversation = async (outputFormat: 'JSON' | 'TEXT') => {
    await h.configure(
      baseConfig({
        intents: [intentRow('X', 20)],
        rules: [
          ruleRow({
            intentCode: 'X',
            stateCode: 'S',
            ruleType: 'EXACT',
            matchPattern: 'never said',
            action: 'SET_INPUT_PARAM',
            actionValue: 'n',
          }),
        ],
        promptTemplates: [templateRow({ intentCode: 'X', stateCode: 'S', outputFormat })],
        responses: [
          responseRow({
            intentCode: 'X',
            stateCode: 'S',
            responseType: 'DERIVED',
            outputFormat,
            ...(outputFormat === 'JSON'
              ? { jsonSchema: { type: 'object', required: ['answer'], properties: { answer: { type: 'string' } } } }
              : {}),
          }),
        ],
      })
    );
    const id = randomUUID();
    await h.seedConversation(id, { intentCode: 'X', stateCode: 'S' });
    return id;
  };

  /** One turn in X/S whose DERIVED JSON response (json_schema `{answer: string}`) gets `reply`. */
  const derivedJsonTurn = async (reply: unknown) => {
    const id = await derivedConversation('JSON');
    h.llm.push([
      { kind: 'INTENT', reply: { intent: null } },
      { kind: 'RESP_JSON', reply },
    ]);
    const result = await h.turn({ conversationId: id, message: 'tell me' }).catch((e: unknown) => e);
    const output = (await h.audits(id)).find((a) => a.stage === 'RESOLVE_RESPONSE_LLM_OUTPUT')?.payload;
    return { id, result, output };
  };

  it('a DERIVED JSON reply that breaks its json_schema is still the payload (§8), audited, and moves nothing', async () => {
    const reply = { answer: 5, intent: 'FAQ', state: 'DONE' };
    const { id, result, output } = await derivedJsonTurn(reply);
    expect(result).toMatchObject({ intent: 'X', state: 'S', payload: { type: 'JSON', value: reply } });
    expect(output).toMatchObject({
      valid: false,
      error: 'schema mismatch: /answer must be string',
      intentStateIgnored: true,
    });
    expect(await h.conversation(id)).toMatchObject({ intentCode: 'X', stateCode: 'S', lastAssistantJson: reply });
  });

  it('intent/state of a matching DERIVED JSON reply are taken only as non-blank strings', async () => {
    for (const named of [
      { intent: 5, state: ['DONE'] },
      { intent: '   ', state: { code: 'DONE' } },
      { intent: null, state: true },
    ]) {
      const { result, output } = await derivedJsonTurn({ answer: 'ok', ...named });
      expect(result).toMatchObject({ intent: 'X', state: 'S', payload: { value: { answer: 'ok', ...named } } });
      expect(output).toMatchObject({ valid: true, intentStateIgnored: false });
    }
  });

  it('a DERIVED JSON reply that is not JSON at all fails the turn with LLM_OUTPUT_INVALID', async () => {
    const { id, result, output } = await derivedJsonTurn('Sure! The answer is 5.');
    expect(result).toMatchObject({ type: 'LLM_OUTPUT_INVALID', nonRetryable: true });
    expect(output).toMatchObject({ valid: false, error: 'invalid json', intentStateIgnored: false });
    expect((await h.conversation(id))?.turnCount).toBe(0);
  });

  it.each([
    ['empty', { reply: '' }],
    ['only a tool call', { blocks: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }] }],
    ['cut off at max_tokens', { reply: 'The order is SUBM', stopReason: 'max_tokens' }],
    ['cut off by a refusal', { reply: 'Your order ORD-9108 has been cancel', stopReason: 'refusal' }],
    ['ended by an unknown stop_reason', { reply: 'Your order is cancelled.', stopReason: 'banana' }],
  ])('a DERIVED TEXT answer that is %s fails the turn with LLM_OUTPUT_INVALID, never sent', async (_what, answer) => {
    const id = await derivedConversation('TEXT');
    h.llm.push([
      { kind: 'INTENT', reply: { intent: null } },
      { kind: 'RESP_TEXT', ...answer },
    ]);
    const error = await h.turn({ conversationId: id, message: 'tell me' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'LLM_OUTPUT_INVALID', nonRetryable: true });
    expect(h.llm.requestsOf('RESP_TEXT')).toHaveLength(1);
    expect((await h.conversation(id))?.turnCount).toBe(0);
  });

  it('a transport failure after the SDK retries fails the step retryably (LLM_CALL_FAILED)', async () => {
    h.llm.push([{ kind: 'INTENT', error: { status: 529 }, times: 9 }]);
    const error = await h.turn({ message: 'qwerty' }, { maxAttempts: 3 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'LLM_CALL_FAILED', nonRetryable: false });
    expect(h.llm.requestsOf('INTENT')).toHaveLength(9);
  });
});
