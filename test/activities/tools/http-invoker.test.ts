import { invokeHttpTool } from '../../../activities/tools/http/invoker';
import { DEMO_API_KEY } from '../../../demo/tool-server';
import { engineFailure as failureOf } from '../../support/engine-failure';
import { call, deps, env, useHttpInvokerFixture } from '../../support/http-invoker-fixture';

const { server, row } = useHttpInvokerFixture();

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
