import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApplicationFailure } from '@temporalio/common';
import { toActivityFailure } from '../../../../activities/runtime/failure';
import { CircuitRegistry } from '../../../../activities/tools/http/circuit';
import { invokeHttpTool } from '../../../../activities/tools/http/invoker';
import type { McpHttpToolRow } from '../../../../core/config/tool-rows';
import { EngineError } from '../../../../core/errors';
import type { JsonObject } from '../../../../core/json';
import { httpTool } from '../../../../db/seed/builders';
import { serializeError } from '../../../../observability/logger';

/**
 * What an HTTP tool's failure says, wherever it goes (its message: audit rows, the SSE stream, logs, spans; its
 * Temporal failure: history): never a CONVENGINE_TOOL_* value, never the upstream's body.
 */
const KEY = 'PARTNERKEYs3cr3t';
const CUSTOMER = 'ssn 123-45-6789';
const ctx = { conversationId: 'c-1', turnNumber: 4, userId: 'u-9', tenantId: 't-2' };

/** An upstream that answers `/status/<code>` with that status and a body quoting the request's key and a customer. */
let upstream: http.Server;
let base: string;
beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const status = Number(/^\/status\/(\d{3})/.exec(req.url ?? '')?.[1] ?? 200);
    const echoed = `key ${String(req.headers['x-api-key'])} url ${req.url} ${CUSTOMER}`;
    res.writeHead(status, status === 302 ? { location: `https://elsewhere.example${req.url}` } : {});
    res.end(echoed);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise((resolve) => upstream.close(resolve)));

async function failureOf(row: McpHttpToolRow, env: Record<string, string>, args: JsonObject = {}) {
  const inv = { toolCode: 'partner.status', row, args, ctx, idempotencyKey: null, callId: 't/tool/1' };
  const err = await invokeHttpTool(inv, { circuits: new CircuitRegistry(), env, sleep: async () => undefined }).then(
    () => null,
    (e: unknown) => e
  );
  expect(err).toBeInstanceOf(EngineError);
  const failure = toActivityFailure(err) as ApplicationFailure;
  const everywhere = JSON.stringify([
    (err as Error).message,
    serializeError(err),
    { message: failure.message, details: failure.details },
  ]);
  return { err: err as EngineError, everywhere };
}

const tool = (extra: Partial<McpHttpToolRow>) =>
  httpTool({ toolId: 1, urlTemplate: `${base}/x`, maxAttempts: 1, initialBackoffMs: 1, ...extra });

describe('an HTTP tool failure never echoes an environment value', () => {
  it('a url_template that does not render to a URL names its variables, not their values', async () => {
    const env = { CONVENGINE_TOOL_PARTNER_URL: 'partner.example.com', CONVENGINE_TOOL_PARTNER_KEY: KEY };
    const row = tool({
      urlTemplate: '{{env.CONVENGINE_TOOL_PARTNER_URL}}/orders/status?apikey={{env.CONVENGINE_TOOL_PARTNER_KEY}}',
    });
    const { err, everywhere } = await failureOf(row, env);
    expect(err).toMatchObject({ type: 'CONFIG_INVALID' });
    expect(err.message).toBe(
      'HTTP tool partner.status: url_template does not render to a valid URL (url_template reads ' +
        '{{env.CONVENGINE_TOOL_PARTNER_URL}}, {{env.CONVENGINE_TOOL_PARTNER_KEY}}; values not shown)'
    );
    expect(everywhere).not.toContain(KEY);
    expect(everywhere).not.toContain('partner.example.com');
  });

  it('arguments that change the URL path: the placeholders are named, not the path with the key in it', async () => {
    const env = { CONVENGINE_TOOL_PARTNER_URL: base, CONVENGINE_TOOL_PARTNER_KEY: KEY };
    const row = tool({
      urlTemplate: '{{env.CONVENGINE_TOOL_PARTNER_URL}}/k/{{env.CONVENGINE_TOOL_PARTNER_KEY}}/.{{args.id}}',
    });
    const { err, everywhere } = await failureOf(row, env, { id: '' });
    expect(err).toMatchObject({ type: 'TOOL_ARGS_INVALID' });
    expect(err.message).toBe(
      'HTTP tool partner.status: the arguments change the URL path (url_template reads {{args.id}}; values not shown)'
    );
    expect(everywhere).not.toContain(KEY);
  });

  it('a network error names its code, not the host and port the environment gave', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const env = { CONVENGINE_TOOL_PARTNER_URL: `http://127.0.0.1:${port}` };
    const { err, everywhere } = await failureOf(tool({ urlTemplate: '{{env.CONVENGINE_TOOL_PARTNER_URL}}/x' }), env);
    expect(err).toMatchObject({ type: 'TOOL_HTTP_ERROR', details: { ioKind: 'IO' } });
    expect(err.message).toBe(
      'HTTP_API call of partner.status failed due to an IO error after 1 attempt(s): ECONNREFUSED'
    );
    expect(everywhere).not.toContain(String(port));
  });
});

describe('an HTTP tool failure keeps no part of the upstream body', () => {
  const keyed = (path: string, extra: Partial<McpHttpToolRow> = {}) =>
    tool({
      urlTemplate: `${base}${path}`,
      authKind: 'API_KEY',
      authSecretEnv: 'CONVENGINE_TOOL_PARTNER_KEY',
      ...extra,
    });
  const env = { CONVENGINE_TOOL_PARTNER_KEY: KEY };

  it.each([
    ['a 401 that echoes the key', '/status/401'],
    ['a 500', '/status/500'],
    ['a redirect whose body and Location quote the URL', '/status/302?apikey={{env.CONVENGINE_TOOL_PARTNER_KEY}}'],
  ])('%s: the status, the tool and the attempts, in history as in the logs', async (_what, path) => {
    const { err, everywhere } = await failureOf(keyed(path), env);
    expect(err).toMatchObject({ type: 'TOOL_HTTP_ERROR', details: { toolCode: 'partner.status', attempts: 1 } });
    expect(Object.keys(err.details ?? {}).sort()).toEqual(['attempts', 'status', 'toolCode']);
    expect(everywhere).not.toContain(KEY);
    expect(everywhere).not.toContain(CUSTOMER);
  });

  it('a 2xx body that a JSON_PATH mapping cannot read', async () => {
    const row = keyed('/status/200', { responseMappingKind: 'JSON_PATH', responseMapping: '$.status' });
    const { err, everywhere } = await failureOf(row, env);
    expect(err).toMatchObject({ type: 'TOOL_EXECUTION_FAILED', details: { toolCode: 'partner.status' } });
    expect(err.message).toContain('response is not JSON');
    expect(everywhere).not.toContain(KEY);
    expect(everywhere).not.toContain(CUSTOMER);
  });
});
