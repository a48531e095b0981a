import Anthropic from '@anthropic-ai/sdk';
import { CALL_KIND_HEADER, startScriptedLlm, type ScriptedLlm } from '../../scripted-llm';

describe('scripted Messages-API server (real SDK)', () => {
  let llm: ScriptedLlm;
  let client: Anthropic;

  beforeEach(async () => {
    llm = await startScriptedLlm();
    client = new Anthropic({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 2 });
  });
  afterEach(async () => {
    await llm.stop();
  });

  const ask = (kind: string, text: string, system = 'sys') =>
    client.messages.create(
      { model: 'm', max_tokens: 100, system, messages: [{ role: 'user', content: text }] },
      { headers: { [CALL_KIND_HEADER]: kind } }
    );
  const textOf = (m: Anthropic.Message) => (m.content[0]?.type === 'text' ? m.content[0].text : '');

  it('answers by call kind in order, JSON replies as text, and records requests', async () => {
    llm.push([
      { kind: 'DA', reply: { dialogueAct: 'EDIT', confidence: 0.9 } },
      { kind: 'DA', reply: 'second' },
      { kind: 'INTENT', reply: 'intent answer' },
    ]);
    expect(textOf(await ask('INTENT', 'hello'))).toBe('intent answer');
    expect(JSON.parse(textOf(await ask('DA', 'a')))).toEqual({ dialogueAct: 'EDIT', confidence: 0.9 });
    expect(textOf(await ask('DA', 'b'))).toBe('second');
    expect(llm.requests.map((r) => r.kind)).toEqual(['INTENT', 'DA', 'DA']);
    expect(llm.requestsOf('DA')[1]).toMatchObject({ userText: 'b', system: 'sys', status: 200 });
    expect(llm.unconsumed()).toEqual([]);
  });

  it('matches on prompt text (substring or RegExp) and honours times / persistent', async () => {
    llm.push([
      { match: /order\s+\d+/, reply: 'regex', times: 2 },
      { match: 'refund', reply: 'substring', persistent: true, label: 'refunds' },
    ]);
    expect(textOf(await ask('X', 'order 12'))).toBe('regex');
    expect(textOf(await ask('X', 'order 13'))).toBe('regex');
    for (let i = 0; i < 3; i++) expect(textOf(await ask('X', 'a refund please'))).toBe('substring');
    expect(llm.requests.at(-1)?.answeredBy).toBe('refunds');
    await expect(ask('X', 'order 14')).rejects.toThrow(/UNSCRIPTED/);
  });

  it('fails loudly and non-retryably for an unscripted call, naming kind and prompt', async () => {
    const err = await ask('PLAN', 'what tool should I use for order ORD-1?').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((err as Error).message)).toMatch(/kind=PLAN.*ORD-1/);
    expect(llm.requests).toHaveLength(1);
  });

  it("answers headers over Node's limit with a JSON error saying so, not a bare status line", async () => {
    const res = await fetch(`${llm.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-big': 'x'.repeat(20_000) },
      body: '{}',
    });
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'scripted LLM refused the request: request headers over the server limit' },
    });
    expect(llm.requests).toHaveLength(0);
  });

  it.each([429, 529, 500])('injects HTTP %s, which the SDK retries', async (status) => {
    llm.push([
      { kind: 'RESP_TEXT', error: { status } },
      { kind: 'RESP_TEXT', reply: 'after retry' },
    ]);
    expect(textOf(await ask('RESP_TEXT', 'x'))).toBe('after retry');
    expect(llm.requests.map((r) => r.status)).toEqual([status, 200]);
  });

  it('delays an answer (client timeouts surface as connection errors)', async () => {
    llm.push([{ kind: 'SLOW', reply: 'late', delayMs: 300 }]);
    const impatient = new Anthropic({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0, timeout: 50 });
    const err = await impatient.messages
      .create(
        { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] },
        { headers: { [CALL_KIND_HEADER]: 'SLOW' } }
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
  });

  it('reports one-shot entries that were never used', () => {
    llm.setScript([
      { kind: 'A', reply: 'x', label: 'first' },
      { kind: 'B', reply: 'y' },
      { kind: 'C', reply: 'z', persistent: true },
    ]);
    expect(llm.unconsumed()).toEqual(['first', '#2 B']);
  });
});
