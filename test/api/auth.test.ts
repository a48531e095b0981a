import { buildApi } from '../../api/app';
import { ApiHarness } from '../support/api-harness';
import { fakeConsolePorts, fakePorts } from '../support/fake-ports';

describe('bearer token auth (API_TOKEN)', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start({ apiToken: 's3cret-token' });
  });
  afterAll(async () => h?.stop());

  it('leaves liveness, readiness and the static pages (console, Swagger UI, the OpenAPI document) open', async () => {
    for (const path of ['/healthz', '/readyz', '/console', '/docs', '/docs/openapi.json']) {
      expect([path, (await h.request('GET', path)).status]).toEqual([path, 200]);
    }
  });

  it('answers a probe without the token (a Kubernetes readiness probe sends none) with the checks, no more', async () => {
    const res = await h.request('GET', '/readyz');
    expect([res.status, res.headers.get('www-authenticate')]).toEqual([200, null]);
    expect(Object.keys(res.json())).toEqual(['status', 'checks']);
  });

  it.each([
    ['no header', {}],
    ['a wrong token', { authorization: 'Bearer nope' }],
    ['another scheme', { authorization: 'Basic czNjcmV0LXRva2Vu' }],
    ['a token prefix', { authorization: 'Bearer s3cret' }],
  ])('refuses %s with 401 on every other route', async (_name, headers) => {
    for (const [method, path] of [
      ['GET', '/metrics'],
      ['GET', '/api/v1/console/conversations'],
      ['POST', '/api/v1/conversation/message'],
      ['GET', `/api/v1/conversation/${crypto.randomUUID()}`],
      ['POST', '/api/v1/admin/config/refresh'],
    ] as const) {
      const res = await h.request(method, path, { headers, ...(method === 'POST' ? { json: { message: 'hi' } } : {}) });
      expect([path, res.status, res.json().error.code]).toEqual([path, 401, 'UNAUTHORIZED']);
    }
  });

  it('accepts the right token', async () => {
    const res = await h.request('GET', `/api/v1/conversation/${crypto.randomUUID()}`, {
      headers: { authorization: 'Bearer s3cret-token' },
    });
    expect([res.status, res.json().error.code]).toEqual([404, 'CONVERSATION_NOT_FOUND']);
  });
});

describe('a 401 says how to authenticate (RFC 6750 §3)', () => {
  const app = buildApi({
    ports: { ...fakePorts({}), heldTools: { list: async () => [], resolve: async () => Promise.reject() } },
    apiToken: 's3cret-token',
    messageMaxBytes: 8192,
    logLevel: 'silent',
    metrics: async () => '',
    console: fakeConsolePorts(),
  });
  afterAll(async () => app.close());

  it.each([
    ['no header', {}, 'Bearer'],
    ['another scheme', { authorization: 'Basic czNjcmV0LXRva2Vu' }, 'Bearer'],
    ['a bare scheme', { authorization: 'Bearer' }, 'Bearer'],
    ['a wrong token', { authorization: 'Bearer nope' }, 'Bearer error="invalid_token"'],
    ['a token prefix', { authorization: 'Bearer s3cret' }, 'Bearer error="invalid_token"'],
  ])('%s: 401 with its WWW-Authenticate challenge on every guarded route', async (_name, headers, challenge) => {
    for (const [method, url] of [
      ['GET', '/metrics'],
      ['GET', '/api/v1/console/conversations'],
      ['GET', '/api/v1/admin/turns/held'],
      ['POST', '/api/v1/conversation/message'],
      ['GET', `/api/v1/conversation/${crypto.randomUUID()}`],
      ['GET', '/api/v1/no-such-route'],
    ] as const) {
      const res = await app.inject({
        method,
        url,
        headers,
        ...(method === 'POST' ? { payload: { message: 'hi' } } : {}),
      });
      expect([url, res.statusCode, res.headers['www-authenticate'], res.json().error.code]).toEqual([
        url,
        401,
        challenge,
        'UNAUTHORIZED',
      ]);
    }
  });

  it('sends no challenge with an answer to the right token, nor on the open routes', async () => {
    const ok = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer s3cret-token' } });
    expect([ok.statusCode, ok.headers['www-authenticate']]).toEqual([200, undefined]);
    for (const url of ['/healthz', '/readyz']) {
      const open = await app.inject({ method: 'GET', url });
      expect([url, open.statusCode, open.headers['www-authenticate']]).toEqual([url, 200, undefined]);
    }
  });
});
