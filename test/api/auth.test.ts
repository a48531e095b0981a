import { ApiHarness } from '../support/api-harness';

describe('bearer token auth (API_TOKEN)', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start({ apiToken: 's3cret-token' });
  });
  afterAll(async () => h?.stop());

  it('leaves liveness and the static pages (console, Swagger UI, the OpenAPI document) open', async () => {
    for (const path of ['/healthz', '/console', '/docs', '/docs/openapi.json']) {
      expect([path, (await h.request('GET', path)).status]).toEqual([path, 200]);
    }
  });

  it.each([
    ['no header', {}],
    ['a wrong token', { authorization: 'Bearer nope' }],
    ['another scheme', { authorization: 'Basic czNjcmV0LXRva2Vu' }],
    ['a token prefix', { authorization: 'Bearer s3cret' }],
  ])('refuses %s with 401 on every other route', async (_name, headers) => {
    for (const [method, path] of [
      ['GET', '/readyz'],
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
    const res = await h.request('GET', '/readyz', { headers: { authorization: 'Bearer s3cret-token' } });
    expect(res.status).toBe(200);
  });
});
