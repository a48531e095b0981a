import http from 'node:http';
import net from 'node:net';
import { CircuitRegistry } from '../../../activities/tools/http/circuit';
import { invokeHttpTool, type HttpInvokerDeps, type HttpToolInvocation } from '../../../activities/tools/http/invoker';
import { MAX_RESPONSE_BYTES } from '../../../activities/tools/http/transport';
import type { McpHttpToolRow } from '../../../core/config/tool-rows';
import { EngineError } from '../../../core/errors';
import type { JsonObject } from '../../../core/json';
import { httpTool } from '../../../db/seed/builders';
import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../../../demo/tool-server';

let server: DemoToolServer;
const env = { CONVENGINE_TOOL_ORDER_KEY: DEMO_API_KEY, CONVENGINE_TOOL_TOKEN: 't0k3n', CONVENGINE_TOOL_TENANT: 'acme' };
const ctx = { conversationId: 'c-1', turnNumber: 4, userId: 'u-9', tenantId: 't-2' };

beforeAll(async () => {
  server = await startDemoToolServer();
});
afterAll(async () => server.stop());
beforeEach(() => {
  server.faults.clear();
  server.counters.reset();
});

function row(extra: Partial<McpHttpToolRow>): McpHttpToolRow {
  return httpTool({
    toolId: 1,
    urlTemplate: `${server.baseUrl}/orders/async-trace`,
    initialBackoffMs: 1,
    maxBackoffMs: 5,
    ...extra,
  });
}

function deps(extra: Partial<HttpInvokerDeps> = {}): HttpInvokerDeps {
  return { circuits: new CircuitRegistry(), env, ...extra };
}

let calls = 0;
/** A new tool call each time (its own call id), unless `callId` names the call this is an activity retry of. */
function call(
  r: McpHttpToolRow,
  args: JsonObject = {},
  idempotencyKey: string | null = null,
  callId = `turn-c-1-4/tool/${++calls}`
): HttpToolInvocation {
  return { toolCode: 'demo.tool', row: r, args, ctx, idempotencyKey, callId };
}

async function failureOf(promise: Promise<unknown>): Promise<EngineError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e
  );
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

describe('HTTP tool invoker: requests', () => {
  it('renders URL, query params and headers, injects the context and sends the API key', async () => {
    const r = row({
      urlTemplate: `${server.baseUrl}/orders/status`,
      queryParams: {
        orderId: '{{args.orderId}}',
        optional: '{{args.missing}}',
        tenant: '{{env.CONVENGINE_TOOL_TENANT}}',
      },
      headers: { 'X-Trace': 'conv-{{ctx.conversationId}}' },
      authKind: 'API_KEY',
      authSecretEnv: 'CONVENGINE_TOOL_ORDER_KEY',
    });
    const out = await invokeHttpTool(call(r, { orderId: 'ORD 7017/x' }), deps());
    expect(out).toMatchObject({ status: 200, attempt: 1, mapped: { orderId: 'ORD 7017/x', status: 'SUBMITTED' } });
    expect(out.latencyMs).toBeGreaterThanOrEqual(0);
    const logged = server.counters.log[0];
    expect(logged?.query).toEqual({ orderId: 'ORD 7017/x', tenant: 'acme' });
    expect(logged?.headers).toMatchObject({
      'x-trace': 'conv-c-1',
      'x-conversation-id': 'c-1',
      'x-turn-number': '4',
      'x-user-id': 'u-9',
      'x-tenant-id': 't-2',
      'x-api-key': DEMO_API_KEY,
    });
    expect(logged?.headers['idempotency-key']).toBeUndefined();
  });

  it('sends the args as JSON when a POST has no body template, and types whole placeholders in a JSON body', async () => {
    const url = `${server.baseUrl}/loan/applications`;
    await invokeHttpTool(
      call(row({ urlTemplate: url, httpMethod: 'POST' }), { customerId: 'C1', amount: 350000 }),
      deps()
    );
    expect(JSON.parse(server.counters.log[0]?.body ?? '')).toEqual({ customerId: 'C1', amount: 350000 });
    const templated = row({
      urlTemplate: url,
      httpMethod: 'POST',
      bodyTemplate: '{"customer":"{{args.customerId}}","amount":"{{args.amount}}","note":"turn {{ctx.turnNumber}}"}',
    });
    await invokeHttpTool(call(templated, { customerId: 'C2', amount: 5 }), deps());
    expect(JSON.parse(server.counters.log[1]?.body ?? '')).toEqual({ customer: 'C2', amount: 5, note: 'turn 4' });
    expect(server.counters.log[1]?.headers['content-type']).toBe('application/json');
  });

  it('rejects a missing URL argument as non-retryable TOOL_ARGS_INVALID', async () => {
    const r = row({ urlTemplate: `${server.baseUrl}/orders/{{args.orderId}}` });
    const err = await failureOf(invokeHttpTool(call(r), deps()));
    expect(err).toMatchObject({ type: 'TOOL_ARGS_INVALID', retryable: false });
    expect(err.message).toContain('needs argument "orderId"');
    expect(server.counters.log).toHaveLength(0);
  });

  it('only reads CONVENGINE_TOOL_* environment variables', async () => {
    const r = row({ headers: { Authorization: '{{env.DATABASE_URL}}' } });
    const err = await failureOf(invokeHttpTool(call(r), deps({ env: { ...env, DATABASE_URL: 'postgres://secret' } })));
    expect(err).toMatchObject({ type: 'CONFIG_INVALID', retryable: false });
    expect(err.message).toContain('only variables named CONVENGINE_TOOL_*');
  });
});

describe('HTTP tool invoker: auth', () => {
  it('sends a bearer token and a custom API key header', async () => {
    await invokeHttpTool(call(row({ authKind: 'BEARER', authSecretEnv: 'CONVENGINE_TOOL_TOKEN' })), deps());
    expect(server.counters.log[0]?.headers['authorization']).toBe('Bearer t0k3n');
    await invokeHttpTool(
      call(row({ authKind: 'api_key', authHeaderName: 'X-Key', authSecretEnv: 'CONVENGINE_TOOL_TOKEN' })),
      deps()
    );
    expect(server.counters.log[1]?.headers['x-key']).toBe('t0k3n');
  });

  it('fails clearly and without a request when the secret is not set', async () => {
    const err = await failureOf(
      invokeHttpTool(call(row({ authKind: 'BEARER', authSecretEnv: 'CONVENGINE_TOOL_MISSING' })), deps())
    );
    expect(err).toMatchObject({ type: 'CONFIG_INVALID', retryable: false });
    expect(err.message).toContain('CONVENGINE_TOOL_MISSING is not set');
    expect(server.counters.log).toHaveLength(0);
  });

  it('only takes auth secrets from CONVENGINE_TOOL_* variables', async () => {
    const r = row({ authKind: 'BEARER', authSecretEnv: 'DATABASE_URL' });
    const err = await failureOf(invokeHttpTool(call(r), deps({ env: { ...env, DATABASE_URL: 'postgres://secret' } })));
    expect(err.message).toContain('auth_secret_env must name a CONVENGINE_TOOL_* variable');
    expect(server.counters.log).toHaveLength(0);
  });

  it('gets the upstream 401 as a non-retryable HTTP error when the key is wrong', async () => {
    const r = row({
      urlTemplate: `${server.baseUrl}/orders/status`,
      authKind: 'API_KEY',
      authSecretEnv: 'CONVENGINE_TOOL_TOKEN',
      maxAttempts: 3,
    });
    const err = await failureOf(invokeHttpTool(call(r, { orderId: 'X' }), deps()));
    expect(err).toMatchObject({ type: 'TOOL_HTTP_ERROR', retryable: false });
    expect(err.message).toContain('status 401 after 1 attempt(s)');
  });
});

describe('HTTP tool invoker: response mapping', () => {
  const rating = () => `${server.baseUrl}/loan/credit-rating?customerId={{args.customerId}}`;
  it.each([
    ['RAW_JSON', null, { customerId: 'C-LOW', creditRating: 640 }],
    ['JSON_PATH', { path: '$.creditRating' }, 640],
    ['JSON_PATH', '$.missing', null],
    ['FIELD_TEMPLATE', { rating: '$.creditRating', who: '$.customerId' }, { rating: 640, who: 'C-LOW' }],
    ['TEXT', null, '{"customerId":"C-LOW","creditRating":640}'],
  ] as const)('%s %j', async (kind, mapping, expected) => {
    const r = row({ urlTemplate: rating(), responseMappingKind: kind, responseMapping: mapping });
    const out = await invokeHttpTool(call(r, { customerId: 'C-LOW' }), deps());
    expect(out.mapped).toEqual(expected);
  });

  it('maps a non-JSON body to {text} in RAW_JSON mode and refuses JSON_PATH on it', async () => {
    const raw = await invokeHttpTool(call(row({ urlTemplate: `${server.baseUrl}/health` })), deps());
    expect(raw.mapped).toEqual({ text: 'ok' });
    const r = row({
      urlTemplate: `${server.baseUrl}/health`,
      responseMappingKind: 'JSON_PATH',
      responseMapping: '$.x',
    });
    const err = await failureOf(invokeHttpTool(call(r), deps()));
    expect(err).toMatchObject({ type: 'TOOL_EXECUTION_FAILED', retryable: false });
    expect(err.message).toContain('response is not JSON');
  });

  it('refuses an invalid mapping config as CONFIG_INVALID', async () => {
    const r = row({ responseMappingKind: 'FIELD_TEMPLATE', responseMapping: null });
    expect(await failureOf(invokeHttpTool(call(r), deps()))).toMatchObject({ type: 'CONFIG_INVALID' });
    expect(server.counters.log).toHaveLength(0);
  });
});

describe('HTTP tool invoker: retries and timeouts', () => {
  it('retries 503 with backoff and succeeds on a later attempt', async () => {
    server.faults.set('/orders/async-trace', { failTimes: 2, status: 503 });
    const sleeps: number[] = [];
    const out = await invokeHttpTool(
      call(row({ maxAttempts: 3, initialBackoffMs: 10, backoffMultiplier: 3, maxBackoffMs: 25 })),
      deps({ sleep: async (ms) => void sleeps.push(ms) })
    );
    expect(out).toMatchObject({ status: 200, attempt: 3 });
    expect(sleeps).toEqual([10, 25]);
    expect(server.counters.requests('/orders/async-trace')).toBe(3);
  });

  it('gives up after max_attempts with a retryable error naming the status', async () => {
    server.faults.set('/orders/async-trace', { failTimes: 5, status: 502 });
    const err = await failureOf(invokeHttpTool(call(row({ maxAttempts: 2 })), deps()));
    expect(err).toMatchObject({ type: 'TOOL_HTTP_ERROR', retryable: true });
    expect(err.message).toContain('status 502 after 2 attempt(s)');
  });

  it('does not retry a status outside retry_status_codes', async () => {
    server.faults.set('/orders/async-trace', { failTimes: 5, status: 500 });
    await failureOf(invokeHttpTool(call(row({ maxAttempts: 3, retryStatusCodes: [503] })), deps()));
    expect(server.counters.requests('/orders/async-trace')).toBe(1);
  });

  it('times out a slow response (read timeout) and retries it', async () => {
    server.faults.set('/orders/async-trace', { delayMs: 400 });
    const err = await failureOf(invokeHttpTool(call(row({ readTimeoutMs: 100, maxAttempts: 2 })), deps()));
    expect(err).toMatchObject({ type: 'TOOL_TIMEOUT', retryable: true });
    expect(err.message).toContain('timeout after 2 attempt(s)');
    expect(server.counters.requests('/orders/async-trace')).toBe(2);
  });

  it('times out a connection that is never established (connect timeout)', async () => {
    // A TCP listener that never answers the TLS handshake: the https connection never completes.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const r = row({
        urlTemplate: `https://127.0.0.1:${port}/x`,
        connectTimeoutMs: 150,
        readTimeoutMs: 5000,
        maxAttempts: 1,
      });
      const started = Date.now();
      const err = await failureOf(invokeHttpTool(call(r), deps()));
      expect(err).toMatchObject({ type: 'TOOL_TIMEOUT', retryable: true });
      expect(err.message).toContain('no connection within 150 ms');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      silent.close();
    }
  });

  it('treats a refused connection as a retryable IO error', async () => {
    const dead = await startDemoToolServer();
    const url = `${dead.baseUrl}/orders/async-trace`;
    await dead.stop();
    const err = await failureOf(invokeHttpTool(call(row({ urlTemplate: url, maxAttempts: 2 })), deps()));
    expect(err).toMatchObject({ type: 'TOOL_HTTP_ERROR', retryable: true });
    expect(err.message).toContain('IO error after 2 attempt(s)');
  });

  it('sends one stable Idempotency-Key on every attempt, so a write applied before a timeout is not applied twice', async () => {
    server.faults.set('/loan/applications', { applyThenTimeout: { times: 1, delayMs: 500 } });
    const r = row({
      urlTemplate: `${server.baseUrl}/loan/applications`,
      httpMethod: 'POST',
      readTimeoutMs: 150,
      maxAttempts: 3,
    });
    const key = 'turn-c-1-4/tool/2';
    const out = await invokeHttpTool(call(r, { customerId: 'C1' }, key), deps());
    expect(out).toMatchObject({ status: 201, attempt: 2, mapped: { applicationId: 'LA-90311', status: 'SUBMITTED' } });
    expect(server.counters.log.map((l) => l.headers['idempotency-key'])).toEqual([key, key]);
    expect(server.counters.writeEffects(key)).toBe(1);
  });
});

describe('HTTP tool invoker: circuit breaker', () => {
  it('opens after the failure threshold, fails fast while open, and closes after a successful trial', async () => {
    let now = 1_000_000;
    const circuits = new CircuitRegistry(() => now);
    const d = deps({ circuits, now: () => now });
    const r = row({ maxAttempts: 1, circuitFailureThreshold: 2, circuitOpenMs: 5000 });
    server.faults.set('/orders/async-trace', { failTimes: 3, status: 503 });
    await failureOf(invokeHttpTool(call(r), d));
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
    await failureOf(invokeHttpTool(call(r), d));
    expect(circuits.phase('demo.tool')).toBe('OPEN');
    const open = await failureOf(invokeHttpTool(call(r), d));
    expect(open).toMatchObject({ type: 'TOOL_CIRCUIT_OPEN', retryable: true });
    expect(server.counters.requests('/orders/async-trace')).toBe(2);
    now += 5000;
    expect(circuits.phase('demo.tool')).toBe('HALF_OPEN');
    await failureOf(invokeHttpTool(call(r), d));
    expect(circuits.phase('demo.tool')).toBe('OPEN');
    now += 5000;
    await expect(invokeHttpTool(call(r), d)).resolves.toMatchObject({ status: 200 });
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
  });

  const failWith = (status: number, times = 1) =>
    server.faults.set('/orders/async-trace', { failTimes: times, status });

  it('counts one call once, however many activity attempts it takes: one turn cannot open it for everyone', async () => {
    const circuits = new CircuitRegistry();
    const r = row({ maxAttempts: 1, circuitFailureThreshold: 2 });
    failWith(500, 10);
    const oneCall = call(r);
    for (let attempt = 1; attempt <= 5; attempt++) await failureOf(invokeHttpTool(oneCall, deps({ circuits })));
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    expect(circuits.phase('demo.tool')).toBe('OPEN');
  });

  it('counts only what says the upstream is unhealthy; a 4xx of the request resets the count', async () => {
    const circuits = new CircuitRegistry();
    const r = row({ maxAttempts: 1, circuitFailureThreshold: 2, retryStatusCodes: [] });
    for (const status of [404, 400, 401, 422, 404]) {
      failWith(status);
      expect(await failureOf(invokeHttpTool(call(r), deps({ circuits })))).toMatchObject({ retryable: false });
    }
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
    failWith(503);
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    failWith(404);
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    failWith(503);
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
    // Throttling and a request timeout count, even when the row does not retry them.
    failWith(429);
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    expect(circuits.phase('demo.tool')).toBe('OPEN');
    const timeouts = new CircuitRegistry();
    failWith(408, 2);
    for (let i = 0; i < 2; i++) await failureOf(invokeHttpTool(call(r), deps({ circuits: timeouts })));
    expect(timeouts.phase('demo.tool')).toBe('OPEN');
  });

  it('does not count a body over the size cap: the upstream answered', async () => {
    const big = http.createServer((_req, res) => res.end('x'.repeat(MAX_RESPONSE_BYTES + 1)));
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    const { port } = big.address() as net.AddressInfo;
    try {
      const circuits = new CircuitRegistry();
      const r = row({ urlTemplate: `http://127.0.0.1:${port}/big`, maxAttempts: 1, circuitFailureThreshold: 1 });
      const err = await failureOf(invokeHttpTool(call(r), deps({ circuits })));
      expect(err).toMatchObject({ retryable: false, details: { ioKind: 'RESPONSE_TOO_LARGE' } });
      expect(circuits.phase('demo.tool')).toBe('CLOSED');
    } finally {
      big.close();
    }
  });

  it('a 4xx during the half-open trial closes the circuit: the upstream answers', async () => {
    let now = 1_000_000;
    const circuits = new CircuitRegistry(() => now);
    const d = deps({ circuits, now: () => now });
    const r = row({ maxAttempts: 1, circuitFailureThreshold: 1, circuitOpenMs: 5000 });
    failWith(503);
    await failureOf(invokeHttpTool(call(r), d));
    expect(circuits.phase('demo.tool')).toBe('OPEN');
    now += 5000;
    failWith(404);
    expect(await failureOf(invokeHttpTool(call(r), d))).toMatchObject({ type: 'TOOL_HTTP_ERROR', retryable: false });
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
    await expect(invokeHttpTool(call(r), d)).resolves.toMatchObject({ status: 200 });
  });

  it('lets the next call try when a half-open trial ends without an answer (cancelled)', async () => {
    let now = 1_000_000;
    const circuits = new CircuitRegistry(() => now);
    const r = row({ maxAttempts: 2, circuitFailureThreshold: 1, circuitOpenMs: 5000 });
    failWith(503, 3);
    await failureOf(invokeHttpTool(call(r), deps({ circuits, now: () => now })));
    now += 5000;
    const cancelled = new Error('activity cancelled');
    const sleep = () => Promise.reject(cancelled);
    await expect(invokeHttpTool(call(r), deps({ circuits, now: () => now, sleep }))).rejects.toBe(cancelled);
    await expect(invokeHttpTool(call(r), deps({ circuits, now: () => now }))).resolves.toMatchObject({ status: 200 });
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
  });

  it('keeps working when the circuit is disabled', async () => {
    const circuits = new CircuitRegistry();
    const r = row({ maxAttempts: 1, circuitEnabled: false, circuitFailureThreshold: 1 });
    server.faults.set('/orders/async-trace', { failTimes: 1, status: 503 });
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    await expect(invokeHttpTool(call(r), deps({ circuits }))).resolves.toMatchObject({ status: 200 });
  });
});
