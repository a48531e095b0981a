import { baseConfig } from '../support/base-config';
import { ruleRow } from '../support/config-rows';
import { expectInOrder, PipelineHarness } from '../support/pipeline-harness';

const REJECTED_AGENT = { intent: null, confidence: 0 };
/** The audits of an LLM call that failed and left the regex act standing. */
const FALLBACK_STAGES = ['DIALOGUE_ACT_LLM_INPUT', 'DIALOGUE_ACT_LLM_ERROR', 'DIALOGUE_ACT_CLASSIFIED'];

describe('dialogue acts (reference §14 scenarios 8–10, default REGEX_THEN_LLM)', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start();
  });
  afterAll(async () => h.stop());
  beforeEach(async () => {
    h.llm.setScript([{ kind: 'INTENT', reply: REJECTED_AGENT, persistent: true }]);
    h.llm.clearRequests();
    await h.configure(baseConfig({}, { dialogueActMode: 'REGEX_THEN_LLM' }));
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  const classified = async (conversationId: string) =>
    (await h.audits(conversationId)).find((a) => a.stage === 'DIALOGUE_ACT_CLASSIFIED')?.payload;
  const params = async (conversationId: string) => (await h.conversation(conversationId))?.inputParams ?? {};

  it.each([
    ['yes', 'AFFIRM'],
    ['go ahead', 'AFFIRM'],
    ['nope', 'NEGATE'],
  ])('8 "%s" is %s by regex (0.95) without an LLM call', async (text, act) => {
    const result = await h.turn({ message: text });
    expect(await classified(result.conversationId)).toMatchObject({
      dialogueAct: act,
      confidence: 0.95,
      source: 'REGEX',
      dialogueActResolveMode: 'REGEX_THEN_LLM',
    });
    expect(h.llm.requestsOf('DA')).toHaveLength(0);
    expect(await params(result.conversationId)).toMatchObject({
      dialogue_act_regex: act,
      dialogue_act_llm_candidate: null,
      dialogue_act_source: 'REGEX',
    });
  });

  it('a model-written standalone query of 200 KB neither reaches the params nor multiplies in ce_audit', async () => {
    const standaloneQuery = 'Q'.repeat(200_000);
    h.llm.push([{ kind: 'DA', reply: { dialogueAct: 'NEW_REQUEST', confidence: 0.95, standaloneQuery } }]);
    const result = await h.turn({ message: 'What is X?' });
    expect(await params(result.conversationId)).toMatchObject({
      dialogue_act_llm_standalone_query: null,
      standalone_query: null,
      resolved_user_input: 'What is X?',
    });
    const stored = await h.tdb.pool.query<{ rows: string; bytes: string }>(
      'SELECT count(*) AS rows, sum(octet_length(payload_json::text)) AS bytes FROM ce_audit WHERE conversation_id = $1',
      [result.conversationId]
    );
    // The answer is kept once (DIALOGUE_ACT_LLM_OUTPUT); it was copied into every row's _meta.inputParams.
    expect(Number(stored.rows[0]?.rows)).toBeGreaterThan(20);
    expect(Number(stored.rows[0]?.bytes)).toBeLessThan(600_000);
  });

  it('8 a question (0.70) asks the LLM, whose answer wins', async () => {
    h.llm.push([{ kind: 'DA', reply: { dialogueAct: 'QUESTION', confidence: 0.93 } }]);
    const result = await h.turn({ message: 'What is X?' });
    expect(await classified(result.conversationId)).toMatchObject({
      dialogueAct: 'QUESTION',
      confidence: 0.93,
      source: 'LLM',
    });
    expect(await params(result.conversationId)).toMatchObject({
      dialogue_act_regex: 'QUESTION',
      dialogue_act_regex_confidence: 0.7,
      dialogue_act_llm_candidate: 'QUESTION',
    });
    expectInOrder(await h.stages(result.conversationId), [
      'DIALOGUE_ACT_LLM_INPUT',
      'DIALOGUE_ACT_LLM_OUTPUT',
      'DIALOGUE_ACT_CLASSIFIED',
    ]);
  });

  it('8 an LLM failure (after the SDK retries) falls back to the regex act', async () => {
    // A body that quotes the request, as a proxy behind ANTHROPIC_BASE_URL may: none of it is kept.
    const echoed = 'x-api-key sk-ant-ECHOED and the user said What is X?';
    h.llm.push([{ kind: 'DA', error: { status: 500, message: echoed }, times: 3 }]);
    const result = await h.turn({ message: 'What is X?' });
    expect(await classified(result.conversationId)).toMatchObject({
      dialogueAct: 'QUESTION',
      confidence: 0.7,
      source: 'REGEX_FALLBACK',
    });
    expect(h.llm.requestsOf('DA').map((r) => r.status)).toEqual([500, 500, 500]);
    expectInOrder(await h.stages(result.conversationId), FALLBACK_STAGES);
    const audits = await h.audits(result.conversationId);
    expect(audits.find((a) => a.stage === 'DIALOGUE_ACT_LLM_ERROR')?.payload).toMatchObject({
      message: 'LLM call DA failed: 500 Internal Server Error from the Messages API at ANTHROPIC_BASE_URL: api_error',
    });
    const logged = await h.tdb.pool.query<{ error_message: string | null }>(
      'SELECT error_message FROM ce_llm_call_log WHERE conversation_id = $1 AND NOT success',
      [result.conversationId]
    );
    expect(logged.rows.map((r) => r.error_message)).toEqual([
      'LLM call DA failed: 500 Internal Server Error from the Messages API at ANTHROPIC_BASE_URL: api_error',
    ]);
    expect(JSON.stringify(audits)).not.toContain('sk-ant-ECHOED');
  });

  it('8b a reply whose body stalls after the headers times out within the call timeout and falls back too', async () => {
    h.llm.push([{ kind: 'DA', stallBody: true }]);
    const started = Date.now();
    const result = await h.turn({ message: 'What is X?' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await classified(result.conversationId)).toMatchObject({
      dialogueAct: 'QUESTION',
      source: 'REGEX_FALLBACK',
    });
    expectInOrder(await h.stages(result.conversationId), FALLBACK_STAGES);
  }, 30_000);

  it('9 with history, the LLM rewrites the message as a standalone query; REGEX rules still see the raw text', async () => {
    await h.configure(
      baseConfig(
        {
          rules: [
            ruleRow({
              intentCode: 'ANY',
              stateCode: 'ANY',
              matchPattern: 'second one',
              action: 'SET_INPUT_PARAM',
              actionValue: 'raw_text_seen:true',
            }),
          ],
        },
        { dialogueActMode: 'REGEX_THEN_LLM' }
      )
    );
    const first = await h.turn({ message: 'hi' });
    h.llm.push([
      {
        kind: 'DA',
        reply: { dialogueAct: 'QUESTION', confidence: 0.9, standaloneQuery: 'What is the status of order 2?' },
      },
    ]);
    await h.turn({ conversationId: first.conversationId, message: 'and the second one?' });
    const request = h.llm.requestsOf('DA')[0];
    expect(request?.system).toMatch(/standalone query/);
    expect(request?.userText).toMatch(/hi[\s\S]*and the second one\?/);
    const audits = await h.audits(first.conversationId, 2);
    expect(audits.find((a) => a.stage === 'DIALOGUE_ACT_CLASSIFIED')?.payload['standaloneQuery']).toBe(
      'What is the status of order 2?'
    );
    expect(await params(first.conversationId)).toMatchObject({
      standalone_query: 'What is the status of order 2?',
      resolved_user_input: 'What is the status of order 2?',
      raw_text_seen: true,
    });
  });

  it('10 an LLM RESET the RESET pattern does not confirm is guarded; a POST_DIALOGUE_ACT rule can override it', async () => {
    h.llm.push([{ kind: 'DA', reply: { dialogueAct: 'RESET', confidence: 0.9 } }]);
    const guarded = await h.turn({ message: 'please redo the form' });
    expect(await classified(guarded.conversationId)).toMatchObject({
      dialogueAct: 'NEW_REQUEST',
      source: 'REGEX_GUARD',
    });
    expect(await params(guarded.conversationId)).toMatchObject({
      dialogue_act_guard_applied: true,
      dialogue_act_guard_reason: 'REGEX_GUARD_RESET',
      dialogue_act_llm_candidate: 'RESET',
    });

    await h.configure(
      baseConfig(
        {
          rules: [
            ruleRow({
              phase: 'POST_DIALOGUE_ACT',
              ruleType: 'JSON_PATH',
              matchPattern: "$[?(@.inputParams.dialogue_act_source == 'REGEX_GUARD')]",
              action: 'SET_DIALOGUE_ACT',
              actionValue: '{"dialogueAct":"EDIT","source":"POST_DIALOGUE_ACT_RULE"}',
            }),
          ],
        },
        { dialogueActMode: 'REGEX_THEN_LLM' }
      )
    );
    h.llm.push([{ kind: 'DA', reply: { dialogueAct: 'RESET', confidence: 0.9 } }]);
    const overridden = await h.turn({ message: 'please redo the form' });
    expect(await params(overridden.conversationId)).toMatchObject({
      dialogue_act: 'EDIT',
      dialogue_act_source: 'POST_DIALOGUE_ACT_RULE',
    });
    expectInOrder(await h.stages(overridden.conversationId), [
      'DIALOGUE_ACT_CLASSIFIED',
      'RULE_MATCH (DialogueActStep)',
      'SET_DIALOGUE_ACT',
      'RULE_APPLIED (DialogueActStep)',
    ]);
  });
});
