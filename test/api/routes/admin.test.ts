import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../../api/app';
import { notFound } from '../../../api/errors';
import type { ApiPorts } from '../../../api/ports';
import { fakePorts } from '../../support/fake-ports';

const TURN = 'turn-6f1d2c3b-4a59-4e8f-9a0b-1c2d3e4f5a6b-1';

/** The admin routes over ports that record what reached them: retry finds no turn, refresh succeeds. */
function adminApi(): { app: FastifyInstance; reached: string[] } {
  const reached: string[] = [];
  const ports: ApiPorts = {
    ...fakePorts({}),
    turns: {
      keyedConversation: () => Promise.reject(new Error('not used')),
      sendMessage: () => Promise.reject(new Error('not used')),
      decideApproval: () => Promise.reject(new Error('not used')),
      retryTurn: async (workflowId) => {
        reached.push('retry');
        throw notFound('TURN_NOT_FOUND', `No turn ${workflowId}.`);
      },
    },
    config: {
      refresh: async () => {
        reached.push('refresh');
        return { version: 'v1', changed: false };
      },
    },
    heldTools: {
      list: async () => [],
      resolve: async () => {
        reached.push('held-tool');
        return { accepted: true, toolCode: 'loan.application.submit', callIndex: 1, action: 'skip' };
      },
    },
  };
  return { app: buildApi({ ports, messageMaxBytes: 8192, logLevel: 'silent' }), reached };
}

const ROUTES = [
  ['retry', `/api/v1/admin/turns/${TURN}/retry`, {}],
  ['refresh', '/api/v1/admin/config/refresh', {}],
  ['held-tool', `/api/v1/admin/turns/${TURN}/held-tool`, { action: 'skip' }],
] as const;

describe('the admin routes refuse body properties they do not take (api/routes/admin.ts, held-tools.ts)', () => {
  let api: ReturnType<typeof adminApi>;
  beforeEach(() => {
    api = adminApi();
  });
  afterEach(async () => api.app.close());

  it.each(ROUTES)('POST %s with an unknown property is 400 VALIDATION_FAILED naming it', async (_name, url, body) => {
    const res = await api.app.inject({ method: 'POST', url, payload: { ...body, force: true } });
    expect([res.statusCode, res.json()]).toEqual([
      400,
      {
        error: {
          code: 'VALIDATION_FAILED',
          message: 'body.force is not an allowed property.',
          details: { in: 'body', field: 'force', problem: 'additionalProperties' },
        },
      },
    ]);
    expect(api.reached).toEqual([]);
  });

  it.each(ROUTES)('POST %s without unknown properties reaches the route', async (name, url, body) => {
    const res = await api.app.inject({ method: 'POST', url, payload: body });
    expect(res.statusCode).toBe(name === 'retry' ? 404 : 200);
    expect(api.reached).toEqual([name]);
  });

  it.each([
    ['retry', `/api/v1/admin/turns/${TURN}/retry`, 404],
    ['refresh', '/api/v1/admin/config/refresh', 200],
  ])('POST %s takes no body at all, as before', async (name, url, status) => {
    const res = await api.app.inject({ method: 'POST', url });
    expect(res.statusCode).toBe(status);
    expect(api.reached).toEqual([name]);
  });

  it('documents the body of retry and refresh as optional, with no properties', async () => {
    const doc = (await api.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    for (const path of ['/api/v1/admin/turns/{workflowId}/retry', '/api/v1/admin/config/refresh']) {
      expect([path, doc.paths[path].post.requestBody]).toEqual([
        path,
        { required: false, content: { 'application/json': { schema: expect.objectContaining({ properties: {} }) } } },
      ]);
    }
    expect(doc.paths['/api/v1/admin/turns/{workflowId}/held-tool'].post.requestBody.required).toBe(true);
  });

  it('refuses a body that is not an object, without echoing it', async () => {
    const res = await api.app.inject({
      method: 'POST',
      url: '/api/v1/admin/config/refresh',
      headers: { 'content-type': 'application/json' },
      payload: '["x"]',
    });
    expect([res.statusCode, res.json().error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(res.body).not.toContain('"x"');
    expect(api.reached).toEqual([]);
  });
});
