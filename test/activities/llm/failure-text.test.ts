import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApplicationFailure } from '@temporalio/common';
import { createAnthropicLlmClient, type LlmCallRecord } from '../../../activities/llm';
import { toActivityFailure } from '../../../activities/runtime/failure';
import type { LlmRequest } from '../../../core/llm';
import { serializeError } from '../../../observability/logger';

const API_KEY = 'sk-ant-api03-SECRETKEYfailuretext';
const CUSTOMER = 'ssn 123-45-6789';

const request: LlmRequest = {
  kind: 'DA',
  systemPrompt: 'You classify.',
  userPrompt: `my ${CUSTOMER}`,
  meta: { conversationId: '00000000-0000-4000-8000-0000000000dd', turnNumber: 1, intent: 'ORDER', state: 'IDLE' },
};

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

/** An upstream behind ANTHROPIC_BASE_URL that answers with what `answer` makes of the request (its key, its prompt). */
async function upstream(answer: (req: http.IncomingMessage, body: string) => Answer): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const out = answer(req, body);
      res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers });
      res.end(out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const keyOf = (req: http.IncomingMessage) => String(req.headers['x-api-key'] ?? req.headers['authorization']);

async function failedCall(server: http.Server | null, baseURL?: string, demoMeta = false) {
  const calls: LlmCallRecord[] = [];
  const client = createAnthropicLlmClient({
    demoMeta,
    apiKey: API_KEY,
    baseURL: baseURL ?? `http://127.0.0.1:${(server?.address() as AddressInfo).port}`,
    model: 'model-x',
    timeoutMs: 2_000,
    maxTokens: 50,
    maxRetries: 0,
    structuredOutput: false,
    onCall: async (entry) => {
      calls.push(entry);
    },
  });
  const err = await client.generateText(request).then(
    () => null,
    (e: unknown) => e
  );
  expect(err).toBeInstanceOf(Error);
  return { err: err as Error, calls };
}

/**
 * Every place a failed call's text goes (the error, its log line, its Temporal failure, its ce_llm_call_log row)
 * holds neither the key nor the prompt.
 */
function expectNothingEchoed(err: Error, calls: LlmCallRecord[]): void {
  const failure = toActivityFailure(err) as ApplicationFailure;
  const text = JSON.stringify([
    err.message,
    serializeError(err),
    { message: failure.message, details: failure.details },
    calls.map((c) => c.errorMessage),
  ]);
  expect(text).not.toContain('SECRETKEY');
  expect(text).not.toContain(CUSTOMER);
}

describe('an LLM call that failed says only what the engine can vouch for', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    const open = server;
    server = undefined;
    if (open) await new Promise((resolve) => open.close(resolve));
  });

  it('a 401 from the provider: status, error type and request id, not the body, which may quote the key', async () => {
    server = await upstream((req) => ({
      status: 401,
      headers: { 'request-id': 'req_011CSecho42' },
      body: JSON.stringify({
        type: 'error',
        error: { type: 'authentication_error', message: `invalid x-api-key ${keyOf(req)}` },
      }),
    }));
    const { err, calls } = await failedCall(server);
    expect(err).toMatchObject({ type: 'LLM_CALL_FAILED', retryable: false, details: { kind: 'DA', status: 401 } });
    expect(err.message).toBe(
      'LLM call DA failed: 401 Unauthorized from the Messages API at ANTHROPIC_BASE_URL: authentication_error (req_011CSecho42)'
    );
    expect(calls).toMatchObject([{ success: false, errorMessage: err.message }]);
    expectNothingEchoed(err, calls);
  });

  it("a status the keyless demo model's server answered: its reason phrase and the server's kind, not its URL", async () => {
    server = await upstream(() => ({ status: 431, body: '' }));
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/SECRETKEY`;
    const { err, calls } = await failedCall(server, baseURL, true);
    expect(err.message).toBe('LLM call DA failed: 431 Request Header Fields Too Large from the keyless demo model');
    expect(calls).toMatchObject([{ success: false, errorMessage: err.message }]);
    expectNothingEchoed(err, calls);
  });

  it('a status HTTP names no reason for: the number alone', async () => {
    server = await upstream(() => ({ status: 599, body: '{}' }));
    const { err } = await failedCall(server);
    expect(err.message).toBe('LLM call DA failed: 599 from the Messages API at ANTHROPIC_BASE_URL');
  });

  it('a proxy echoing the request (headers, prompt) in a body of its own: the status only', async () => {
    server = await upstream((req, body) => ({
      status: 401,
      headers: { 'request-id': `req-${keyOf(req)}` },
      body: JSON.stringify({ error: 'bad key', got: keyOf(req), prompt: body }),
    }));
    const { err, calls } = await failedCall(server);
    expect(err.message).toBe('LLM call DA failed: 401 Unauthorized from the Messages API at ANTHROPIC_BASE_URL');
    expectNothingEchoed(err, calls);
  });

  it('an error type that is not one Anthropic documents is left out', async () => {
    server = await upstream((req) => ({
      status: 529,
      body: JSON.stringify({ type: 'error', error: { type: keyOf(req), message: 'overloaded' } }),
    }));
    const { err, calls } = await failedCall(server);
    expect(err).toMatchObject({ retryable: true, details: { status: 529 } });
    expect(err.message).toBe('LLM call DA failed: 529 Overloaded from the Messages API at ANTHROPIC_BASE_URL');
    expectNothingEchoed(err, calls);
  });

  it('a 200 whose body is not JSON: the error class, not the parser text that quotes it', async () => {
    server = await upstream((req) => ({ status: 200, body: `key=${keyOf(req)} ${CUSTOMER}` }));
    const { err, calls } = await failedCall(server);
    expect(err.message).toBe('LLM call DA failed: SyntaxError');
    expectNothingEchoed(err, calls);
  });

  it('no answer at all: the connection failure by its code', async () => {
    const closed = await upstream(() => ({ status: 200, body: '' }));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { err } = await failedCall(null, `http://127.0.0.1:${port}`);
    expect(err).toMatchObject({ retryable: true, details: { status: null } });
    expect(err.message).toBe('LLM call DA failed: connection failed (ECONNREFUSED)');
  });
});
