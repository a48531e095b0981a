/**
 * The operator's own token (api/auth.ts, OPERATOR_API_TOKEN): with it set, the gateway's token (API_TOKEN), which a
 * gateway serving end users holds, reaches only the routes such a gateway needs; the operator routes (the console,
 * audit rows, their trace and stream, approval decisions, admin, what-if, metrics) answer it 403
 * OPERATOR_TOKEN_REQUIRED. With API_TOKEN alone, it reaches every route, as before. A 401, and the OpenAPI document,
 * are the same whichever tokens are set.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { apiWithDependenciesDown, requestFor } from './openapi/document';

const GATEWAY = 'gateway-s3cret';
const OPERATOR = 'operator-s3cret';

/**
 * A request of every route class: [class, route as the OpenAPI document names it, query]. Every row has all three:
 * it.each would hand a row of two its `done` callback for the third.
 */
const ROUTES: [string, string, string][] = [
  ['gateway', 'POST /api/v1/conversation/message', ''],
  ['gateway', 'GET /api/v1/conversation/{id}', ''],
  // The search that lists every user's emails.
  ['console', 'GET /api/v1/console/conversations', '?q=%40example'],
  ['console', 'GET /api/v1/console/conversations/{id}/turns', ''],
  ['console', 'GET /api/v1/console/turns/{workflowId}', ''],
  ['console', 'POST /api/v1/console/turns/{workflowId}/actions/{action}', ''],
  ['audit', 'GET /api/v1/conversation/audit/{id}', ''],
  ['audit', 'GET /api/v1/conversation/audit/{id}/trace', ''],
  ['audit', 'GET /api/v1/conversation/{id}/stream', ''],
  ['approval', 'POST /api/v1/conversation/{id}/turns/{n}/approval', ''],
  ['admin', 'GET /api/v1/admin/turns/awaiting-approval', ''],
  ['admin', 'GET /api/v1/admin/turns/held', ''],
  ['admin', 'POST /api/v1/admin/turns/{workflowId}/held-tool', ''],
  ['admin', 'POST /api/v1/admin/turns/{workflowId}/retry', ''],
  ['admin', 'POST /api/v1/admin/config/refresh', ''],
  ['what-if', 'GET /api/v1/whatif', ''],
  ['metrics', 'GET /metrics', ''],
];

/** A well-formed request to the route, with `token` as its bearer token (none when undefined). */
function requestOf(name: string, query: string, token: string | undefined): InjectOptions {
  const [method, path] = name.split(' ') as [string, string];
  const request = requestFor(name, method, path, {
    authorization: token === undefined ? undefined : `Bearer ${token}`,
  });
  return { ...request, url: `${request.url as string}${query}` };
}

/** What the token check made of a request: the refusal (status, code, challenge), or `admitted` to the route. */
async function answer(app: FastifyInstance, request: InjectOptions): Promise<unknown> {
  const res = await app.inject(request);
  if (res.statusCode !== 401 && res.statusCode !== 403) return 'admitted';
  return [res.statusCode, res.json().error.code, res.headers['www-authenticate']];
}

const NO_TOKEN = [401, 'UNAUTHORIZED', 'Bearer'];
const INVALID_TOKEN = [401, 'UNAUTHORIZED', 'Bearer error="invalid_token"'];
const OPERATOR_ONLY = [403, 'OPERATOR_TOKEN_REQUIRED', 'Bearer error="insufficient_scope"'];

describe('with API_TOKEN and OPERATOR_API_TOKEN', () => {
  let app: FastifyInstance;
  beforeAll(() => {
    app = apiWithDependenciesDown({ apiToken: GATEWAY, operatorToken: OPERATOR });
  });
  afterAll(async () => app?.close());

  it.each(ROUTES)(
    '%s, %s: the operator token everywhere, the gateway token on the gateway routes only',
    async (kind, name, query) => {
      const answers = {
        none: await answer(app, requestOf(name, query, undefined)),
        another: await answer(app, requestOf(name, query, 'nope')),
        gateway: await answer(app, requestOf(name, query, GATEWAY)),
        operator: await answer(app, requestOf(name, query, OPERATOR)),
      };
      expect(answers).toEqual({
        none: NO_TOKEN,
        another: INVALID_TOKEN,
        gateway: kind === 'gateway' ? 'admitted' : OPERATOR_ONLY,
        operator: 'admitted',
      });
    }
  );

  it("refuses the gateway token on an operator route before reading the request's body", async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/admin/config/refresh',
      headers: { authorization: `Bearer ${GATEWAY}`, 'content-type': 'application/json' },
      payload: '{"not json',
    });
    expect([res.statusCode, res.json().error]).toEqual([
      403,
      {
        code: 'OPERATOR_TOKEN_REQUIRED',
        message:
          "This route is an operator's: it takes the operator token (OPERATOR_API_TOKEN), not the gateway token (API_TOKEN).",
      },
    ]);
  });

  it('answers a path no route takes as it would without the split: 404 for either token', async () => {
    for (const token of [GATEWAY, OPERATOR]) {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/console/nothing/here',
        headers: { authorization: `Bearer ${token}` },
      });
      expect([token, res.statusCode, res.json().error.code]).toEqual([token, 404, 'ROUTE_NOT_FOUND']);
    }
  });
});

describe('with API_TOKEN alone (as before OPERATOR_API_TOKEN)', () => {
  let app: FastifyInstance;
  beforeAll(() => {
    app = apiWithDependenciesDown({ apiToken: GATEWAY });
  });
  afterAll(async () => app?.close());

  it.each(ROUTES)('%s, %s: API_TOKEN reaches it; no other token does', async (_kind, name, query) => {
    const answers = {
      none: await answer(app, requestOf(name, query, undefined)),
      gateway: await answer(app, requestOf(name, query, GATEWAY)),
      operator: await answer(app, requestOf(name, query, OPERATOR)),
    };
    expect(answers).toEqual({ none: NO_TOKEN, gateway: 'admitted', operator: INVALID_TOKEN });
  });
});

describe('which tokens are set does not show', () => {
  let split: FastifyInstance;
  let single: FastifyInstance;
  beforeAll(() => {
    split = apiWithDependenciesDown({ apiToken: GATEWAY, operatorToken: OPERATOR });
    single = apiWithDependenciesDown({ apiToken: GATEWAY });
  });
  afterAll(async () => Promise.all([split?.close(), single?.close()]));

  /** All of a response a caller sees but what differs per request anyway (its id, the date). */
  async function seen(app: FastifyInstance, request: InjectOptions) {
    const res = await app.inject(request);
    const { 'x-request-id': _id, date: _date, ...headers } = res.headers;
    return { status: res.statusCode, headers, body: res.body };
  }

  it.each(ROUTES)('%s, %s: the same 401 to no token and to a wrong one', async (_kind, name, query) => {
    for (const token of [undefined, 'nope', `${OPERATOR}x`, OPERATOR.slice(0, -1)]) {
      const request = requestOf(name, query, token);
      expect([token, await seen(split, request)]).toEqual([token, await seen(single, request)]);
    }
  });

  it('serves the same OpenAPI document', async () => {
    const doc = async (app: FastifyInstance) => (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).body;
    expect(await doc(split)).toBe(await doc(single));
  });
});
