import { CancelledFailure } from '@temporalio/common';
import { eq } from 'drizzle-orm';
import { loadEnv } from '../../../config/env';
import {
  createAnthropicLlmClient,
  createLlmClientFromEnv,
  llmCallLogger,
  llmOptionsFromEnv,
  type AnthropicLlmOptions,
} from '../../../activities/llm';
import type { LlmRequest } from '../../../core/llm';
import { ceLlmCallLog } from '../../../db/schema';
import { startScriptedLlm, type ScriptedLlm } from '../../../scripted-llm';
import { createTestDatabase, type TestDatabase } from '../../support/database';

const conversationId = '00000000-0000-4000-8000-0000000000bb';
const request = (extra: Partial<LlmRequest> = {}): LlmRequest => ({
  kind: 'RESP_TEXT',
  systemPrompt: 'You are terse.',
  userPrompt: 'Say hi.',
  meta: { conversationId, turnNumber: 2, intent: 'FAQ', state: 'IDLE' },
  ...extra,
});

describe('Anthropic LLM client against the scripted Messages server', () => {
  let tdb: TestDatabase;
  let llm: ScriptedLlm;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    llm = await startScriptedLlm();
  });
  afterAll(async () => {
    await llm.stop();
    await tdb.drop();
  });
  beforeEach(() => {
    llm.setScript([]);
    llm.clearRequests();
  });

  const client = (extra: Partial<AnthropicLlmOptions> = {}) =>
    createAnthropicLlmClient({
      apiKey: 'k',
      baseURL: llm.baseUrl,
      model: 'model-x',
      timeoutMs: 2000,
      maxTokens: 300,
      maxRetries: 2,
      structuredOutput: false,
      onCall: llmCallLogger(tdb.db),
      ...extra,
    });
  const logRows = () => tdb.db.select().from(ceLlmCallLog).where(eq(ceLlmCallLog.conversationId, conversationId));

  it('sends the call kind header, model, limits and prompts, and logs the call', async () => {
    llm.push([{ kind: 'RESP_TEXT', reply: 'hi' }]);
    expect(await client().generateText(request({ temperature: 0.2 }))).toBe('hi');
    const sent = llm.requests[0];
    expect(sent).toMatchObject({ kind: 'RESP_TEXT', model: 'model-x', system: 'You are terse.', userText: 'Say hi.' });
    expect(sent?.body).toMatchObject({ max_tokens: 300, temperature: 0.2 });
    const rows = await logRows();
    expect(rows.at(-1)).toMatchObject({
      callKind: 'RESP_TEXT',
      turnNumber: 2,
      intentCode: 'FAQ',
      stateCode: 'IDLE',
      provider: 'anthropic',
      model: 'model-x',
      promptText: 'You are terse.\n\nSay hi.',
      responseText: 'hi',
      success: true,
    });
    expect(Number(rows.at(-1)?.temperature)).toBe(0.2);
    expect(rows.at(-1)?.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('parses JSON answers (also fenced) and validates them against the schema; a bad answer is a result, not a throw', async () => {
    const schema = { type: 'object', required: ['n'], properties: { n: { type: 'number' } } };
    llm.push([
      { kind: 'SCHEMA', reply: '```json\n{"n": 3}\n```' },
      { kind: 'SCHEMA', reply: { n: 'three' } },
      { kind: 'SCHEMA', reply: 'no json here' },
    ]);
    const c = client();
    expect(await c.generateJson(request({ kind: 'SCHEMA', schema }))).toEqual({
      ok: true,
      json: { n: 3 },
      raw: '```json\n{"n": 3}\n```',
    });
    expect(await c.generateJson(request({ kind: 'SCHEMA', schema }))).toMatchObject({
      ok: false,
      error: 'schema mismatch: /n must be number',
      unchecked: { n: 'three' },
    });
    expect(await c.generateJson(request({ kind: 'SCHEMA', schema }))).toMatchObject({
      ok: false,
      error: 'invalid json',
    });
    expect(llm.requests[0]?.system).toMatch(/exactly one JSON value[\s\S]*"required":\["n"\]/);
    const failed = (await logRows()).filter((r) => r.callKind === 'SCHEMA' && !r.success);
    expect(failed.map((r) => r.errorMessage)).toEqual([
      'invalid output: schema mismatch: /n must be number',
      'invalid output: invalid json',
    ]);
  });

  it('sends the schema as output_config when structured output is on', async () => {
    llm.push([{ kind: 'SCHEMA', reply: { n: 1 } }]);
    const schema = { type: 'object', properties: { n: { type: 'number' } } };
    await client({ structuredOutput: true }).generateJson(request({ kind: 'SCHEMA', schema }));
    expect(llm.requests[0]?.body['output_config']).toEqual({ format: { type: 'json_schema', schema } });
  });

  it('429/529/5xx after the SDK retries become a retryable LLM_CALL_FAILED; a 400 is not retryable', async () => {
    llm.push([{ kind: 'RESP_TEXT', error: { status: 529 }, times: 3 }]);
    await expect(client().generateText(request())).rejects.toMatchObject({
      type: 'LLM_CALL_FAILED',
      retryable: true,
      details: { kind: 'RESP_TEXT', status: 529 },
    });
    expect(llm.requests).toHaveLength(3);
    await expect(client().generateText(request({ kind: 'COLLISION' }))).rejects.toMatchObject({
      type: 'LLM_CALL_FAILED',
      retryable: false,
      details: { status: 400 },
    });
    // The status and the provider's error type; the body (the scripted server's UNSCRIPTED text) is never kept.
    expect((await logRows()).filter((r) => r.callKind === 'COLLISION').map((r) => r.errorMessage)).toEqual([
      'LLM call COLLISION failed: 400 Bad Request from the Messages API at ANTHROPIC_BASE_URL: invalid_request_error',
    ]);
  });

  it('a timeout is retryable', async () => {
    llm.push([{ kind: 'RESP_TEXT', reply: 'late', delayMs: 400, persistent: true }]);
    await expect(client({ timeoutMs: 100, maxRetries: 0 }).generateText(request())).rejects.toMatchObject({
      type: 'LLM_CALL_FAILED',
      retryable: true,
    });
  });

  it('ends a call in flight when its activity is cancelled: the connection closes, the reason is thrown, the call is logged', async () => {
    llm.push([{ kind: 'RESP_TEXT', reply: 'late', delayMs: 30_000 }]);
    const cancel = new AbortController();
    const reason = new CancelledFailure('WORKER_SHUTDOWN');
    const call = client({ timeoutMs: 60_000, cancellation: () => cancel.signal }).generateText(request());
    await until(() => llm.requests.length === 1);
    const cancelled = Date.now();
    cancel.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(Date.now() - cancelled).toBeLessThan(1_000);
    await until(() => llm.requests[0]?.hungUpAt !== undefined);
    const logged = (await logRows()).filter((r) => r.errorMessage === 'LLM call RESP_TEXT cancelled');
    expect(logged.map((r) => [r.success, r.responseText])).toEqual([[false, null]]);
  });

  it('builds its options from the environment', async () => {
    const env = loadEnv({
      ANTHROPIC_BASE_URL: llm.baseUrl,
      ANTHROPIC_MODEL: 'env-model',
      LLM_TIMEOUT_MS: '1234',
      LLM_MAX_TOKENS: '77',
    });
    expect(llmOptionsFromEnv(env)).toMatchObject({
      baseURL: llm.baseUrl,
      model: 'env-model',
      timeoutMs: 1234,
      maxTokens: 77,
      maxRetries: 2,
    });
    llm.push([{ kind: 'RESP_TEXT', reply: 'from env' }]);
    expect(await createLlmClientFromEnv(env, tdb.db).generateText(request())).toBe('from env');
    expect(llm.requests[0]?.body).toMatchObject({ model: 'env-model', max_tokens: 77 });
  });

  it('takes a reply with a NUL or a lone surrogate as storable text, logged as such (one helper for text and JSON)', async () => {
    llm.push([
      { kind: 'RESP_TEXT', reply: 'hello\u0000world \uD800' },
      { kind: 'PLAN', reply: '{"action":"ANSWER","answer":"x\\u0000y"}' },
    ]);
    expect(await client().generateText(request())).toBe('hello\uFFFDworld \uFFFD');
    expect(await client().generateJson(request({ kind: 'PLAN' }))).toMatchObject({
      ok: true,
      json: { action: 'ANSWER', answer: 'x\uFFFDy' },
    });
    expect((await logRows()).map((r) => r.responseText)).toContain('hello\uFFFDworld \uFFFD');
  });

  it('refuses a reply over LLM_REPLY_MAX_BYTES as bad output: a text call throws LLM_OUTPUT_INVALID (not retried), a JSON call is not ok', async () => {
    const huge = 'Q'.repeat(4096);
    llm.push([
      { kind: 'RESP_TEXT', reply: huge },
      { kind: 'DA', reply: { dialogueAct: 'NEW_REQUEST', confidence: 0.9, standaloneQuery: huge } },
    ]);
    const small = client({ maxReplyBytes: 2048 });
    await expect(small.generateText(request())).rejects.toMatchObject({ type: 'LLM_OUTPUT_INVALID', retryable: false });
    const json = await small.generateJson(request({ kind: 'DA' }));
    expect(json).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^reply is \d+ bytes, over the 2048-byte limit/),
    });
    expect(json.raw.length).toBeLessThan(1200);
    const logged = (await logRows()).slice(-2);
    expect(logged.map((r) => [r.success, (r.responseText ?? '').length < 1200])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(llm.requests).toHaveLength(2);
  });

  it('refuses JSON nested deeper than MAX_OUTPUT_DEPTH as bad output, without overflowing the stack', async () => {
    const levels = 10_000;
    llm.push([
      { kind: 'PLAN', reply: `{"action":"CALL_TOOL","args":{"a":${'['.repeat(levels)}${']'.repeat(levels)}}}` },
    ]);
    expect(await client().generateJson(request({ kind: 'PLAN' }))).toMatchObject({
      ok: false,
      error: 'json nested deeper than 64 levels',
    });
  });

  it('a failing call log never fails the call', async () => {
    llm.push([{ kind: 'RESP_TEXT', reply: 'still fine' }]);
    const c = client({ onCall: async () => Promise.reject(new Error('log table gone')) });
    expect(await c.generateText(request())).toBe('still fine');
  });
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
