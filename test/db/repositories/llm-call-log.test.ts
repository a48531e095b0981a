import { insertLlmCall, type LlmCallLogEntry } from '../../../db/repositories/llm-call-log';
import { createTestDatabase, type TestDatabase } from '../../support/database';

describe('LLM call log (db/repositories/llm-call-log.ts)', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb.drop());

  const entry: LlmCallLogEntry = {
    conversationId: '00000000-0000-4000-8000-0000000000aa',
    turnNumber: 2,
    callKind: 'INTENT',
    intentCode: 'LOAN',
    stateCode: 'ASK',
    provider: 'anthropic',
    model: 'claude',
    temperature: 0.7,
    promptText: 'system\n\nuser',
    userContext: '{"schema":{}}',
    responseText: '{"intent":"LOAN"}',
    success: true,
    errorMessage: null,
    runId: null,
    latencyMs: 12,
  };

  it('writes every field of a call, the temperature as a two-digit numeric', async () => {
    await insertLlmCall(tdb.db, entry);
    await insertLlmCall(tdb.db, {
      ...entry,
      conversationId: null,
      turnNumber: null,
      temperature: null,
      success: false,
    });
    const { rows } = await tdb.db.$client.query(
      `SELECT conversation_id, turn_number, call_kind, intent_code, state_code, provider, model, temperature::text AS temperature,
              prompt_text, user_context, response_text, success, error_message, latency_ms, created_at IS NOT NULL AS stamped
         FROM ce_llm_call_log ORDER BY llm_call_id`
    );
    const row = {
      conversation_id: entry.conversationId,
      turn_number: 2,
      call_kind: 'INTENT',
      intent_code: 'LOAN',
      state_code: 'ASK',
      provider: 'anthropic',
      model: 'claude',
      temperature: '0.70',
      prompt_text: 'system\n\nuser',
      user_context: '{"schema":{}}',
      response_text: '{"intent":"LOAN"}',
      success: true,
      error_message: null,
      latency_ms: 12,
      stamped: true,
    };
    expect(rows).toEqual([
      row,
      { ...row, conversation_id: null, turn_number: null, temperature: null, success: false },
    ]);
  });
});
