import { buildApi } from '../../api/app';
import { fakeConsolePorts, fakePorts } from '../support/fake-ports';

const CONVERSATION = '6f1d2c3b-4a59-4e8f-9a0b-1c2d3e4f5a6b';
const TURN = `turn-${CONVERSATION}-1`;

describe('405 and Allow name only the methods that work on the path (api/allowed-methods.ts)', () => {
  const app = buildApi({
    ports: { ...fakePorts({}), heldTools: { list: async () => [], resolve: async () => Promise.reject() } },
    console: fakeConsolePorts(),
    messageMaxBytes: 8192,
    logLevel: 'silent',
  });
  afterAll(async () => app.close());

  it.each([
    // GET and HEAD reach GET /conversation/{id}, whose id "message" is not a conversation id: POST alone works.
    ['GET', '/api/v1/conversation/message', 'POST'],
    ['HEAD', '/api/v1/conversation/message', 'POST'],
    ['PUT', '/api/v1/conversation/message', 'POST'],
    ['DELETE', '/api/v1/conversation/message', 'POST'],
    ['DELETE', `/api/v1/conversation/${CONVERSATION}`, 'GET, HEAD'],
    ['DELETE', `/api/v1/conversation/%36${CONVERSATION.slice(1)}`, 'GET, HEAD'],
    ['DELETE', `/api/v1/conversation/${CONVERSATION.toUpperCase()}`, 'GET, HEAD'],
    ['GET', `/api/v1/conversation/${CONVERSATION}/turns/1/approval`, 'POST'],
    ['GET', '/api/v1/admin/config/refresh', 'POST'],
    ['POST', '/api/v1/admin/turns/held', 'GET, HEAD'],
    ['GET', `/api/v1/admin/turns/${TURN}/retry`, 'POST'],
    ['HEAD', `/api/v1/conversation/${CONVERSATION}/stream`, 'GET'],
    ['POST', '/healthz', 'GET, HEAD'],
  ])('%s %s → 405 with Allow: %s', async (method, url, allow) => {
    const res = await app.inject({ method: method as 'GET', url });
    expect([res.statusCode, res.headers['allow']]).toEqual([405, allow]);
    if (method !== 'HEAD') {
      expect(res.json().error).toEqual({ code: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on ${url}.` });
    }
  });

  it.each([
    ['GET', '/api/v1/conversation/not-a-uuid', 400, 'VALIDATION_FAILED'],
    ['GET', '/api/v1/conversation/audit', 400, 'VALIDATION_FAILED'],
    ['DELETE', '/api/v1/conversation/not-a-uuid', 404, 'ROUTE_NOT_FOUND'],
    ['PUT', '/api/v1/conversation/not-a-uuid/stream', 404, 'ROUTE_NOT_FOUND'],
    ['GET', '/api/v1/nothing-here', 404, 'ROUTE_NOT_FOUND'],
    // The docs UI's wildcard serves GET and HEAD there, but no such file: not found, not "GET is not allowed".
    ['GET', '/docs/static/nonexistent.js', 404, 'ROUTE_NOT_FOUND'],
    ['HEAD', '/docs/static/nonexistent.js', 404, undefined],
  ])('%s %s, which nothing there serves, → %i %s', async (method, url, status, code) => {
    const res = await app.inject({ method: method as 'GET', url });
    const answered = method === 'HEAD' ? undefined : res.json().error.code;
    expect([res.statusCode, answered, res.headers['allow']]).toEqual([status, code, undefined]);
  });
});
