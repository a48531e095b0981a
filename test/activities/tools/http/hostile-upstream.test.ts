import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { CircuitRegistry } from '../../../../activities/tools/http/circuit';
import { invokeHttpTool } from '../../../../activities/tools/http/invoker';
import type { McpHttpToolRow } from '../../../../core/config/tool-rows';
import type { JsonObject } from '../../../../core/json';
import { httpTool } from '../../../../db/seed/builders';
import { engineFailure } from '../../../support/engine-failure';

/** An upstream answering each path as a hostile one did (the sweep's tool server), recording what it was sent. */
type Reply = { status: number; headers?: Record<string, string>; body: string | Buffer };
const REPLIES: Record<string, () => Reply> = {
  '/gzip': () => ({
    status: 200,
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: zlib.gzipSync('{"orderId":"ORD-61","status":"SUBMITTED"}'),
  }),
  '/numbers': () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: `{"orderId":123456789012345678901234567890,"status":1e400,"big":${'9'.repeat(100_000)}}`,
  }),
  '/tiny': () => ({ status: 200, body: '{"orderId":"ORD-1","tiny":1e-400}' }),
  '/exact': () => ({ status: 200, body: '{"orderId":"ORD-1","amount":0.1,"avogadro":6.02e23,"n":9007199254740991}' }),
  '/throttled': () => ({ status: 429, headers: { 'retry-after': '3600' }, body: 'slow down' }),
  '/unavailable': () => ({ status: 503, headers: { 'retry-after': '1' }, body: 'unavailable' }),
};

let server: http.Server;
let base = '';
const seen: { path: string; headers: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    seen.push({ path, headers: req.headers });
    const reply: Reply = (REPLIES[path] ?? (() => ({ status: 200, body: '{"ok":true}' })))();
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
});

const ctx = { conversationId: 'c-1', turnNumber: 1, userId: null, tenantId: null };
let calls = 0;
function invoke(path: string, extra: Partial<McpHttpToolRow> = {}, args: JsonObject = {}, sleeps: number[] = []) {
  const row = httpTool({
    toolId: 1,
    urlTemplate: `${base}${path}`,
    initialBackoffMs: 10,
    maxBackoffMs: 2000,
    ...extra,
  });
  return invokeHttpTool(
    { toolCode: 'hostile.tool', row, args, ctx, idempotencyKey: null, callId: `t/tool/${++calls}` },
    { circuits: new CircuitRegistry(), env: {}, sleep: async (ms) => void sleeps.push(ms) }
  );
}

describe('an HTTP tool facing a hostile upstream', () => {
  it('asks for identity and refuses a gzipped answer, non-retryable, instead of passing its bytes on as text', async () => {
    const err = await engineFailure(invoke('/gzip', { maxAttempts: 3 }));
    expect(seen[0]?.headers['accept-encoding']).toBe('identity');
    expect(err).toMatchObject({ type: 'TOOL_HTTP_ERROR', retryable: false, details: { ioKind: 'CONTENT_ENCODING' } });
    expect(err.message).toContain('Content-Encoding gzip');
    expect(seen).toHaveLength(1);
  });

  it('refuses numbers a double does not hold (the API door policy), naming no part of the body', async () => {
    for (const path of ['/numbers', '/tiny']) {
      const err = await engineFailure(invoke(path, { maxAttempts: 3 }));
      expect(err).toMatchObject({ type: 'TOOL_RESPONSE_INEXACT_NUMBER', retryable: false });
      expect(err.message).not.toContain('999');
    }
    expect(seen).toHaveLength(2);
    const exact = await invoke('/exact');
    expect(exact.mapped).toEqual({ orderId: 'ORD-1', amount: 0.1, avogadro: 6.02e23, n: 9007199254740991 });
  });

  it('a TEXT mapping still takes such a body as it is', async () => {
    const out = await invoke('/numbers', { responseMappingKind: 'TEXT', responseMapping: null });
    expect(out.mapped).toContain('123456789012345678901234567890');
  });

  it('stops at a Retry-After longer than the call waits: one request, non-retryable, naming the tool and the wait', async () => {
    const sleeps: number[] = [];
    const err = await engineFailure(invoke('/throttled', { maxAttempts: 5 }, {}, sleeps));
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(err).toMatchObject({ type: 'TOOL_HTTP_ERROR', retryable: false, details: { retryAfterSeconds: 3600 } });
    expect(err.message).toMatch(/hostile\.tool .*status 429.*wait 3600 s/);
  });

  it('waits a short Retry-After instead of the shorter backoff', async () => {
    const sleeps: number[] = [];
    const err = await engineFailure(invoke('/unavailable', { maxAttempts: 2 }, {}, sleeps));
    expect(sleeps).toEqual([1000]);
    expect(seen).toHaveLength(2);
    expect(err).toMatchObject({ type: 'TOOL_HTTP_ERROR', retryable: true });
  });

  it('refuses a non-ASCII argument in a header by its own name, and never sends Latin-1 bytes', async () => {
    const headers = { 'X-User': '{{args.u}}' };
    for (const u of ['李', 'José']) {
      const err = await engineFailure(invoke('/ok', { headers }, { u }));
      expect(err).toMatchObject({ type: 'TOOL_ARGS_INVALID', details: { header: 'X-User' } });
      expect(err.message).toContain('non-ASCII character');
      expect(err.message).not.toContain('control character');
    }
    const control = await engineFailure(invoke('/ok', { headers }, { u: 'a\r\nX-Admin: 1' }));
    expect(control.message).toContain('control character');
    expect(seen).toHaveLength(0);
    await invoke('/ok', { headers }, { u: 'Jose' });
    expect(seen[0]?.headers['x-user']).toBe('Jose');
  });
});
