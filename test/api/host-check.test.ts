/**
 * DNS rebinding (api/host-check.ts): without API_TOKEN, a page on another site can have the operator's browser send
 * requests to the API on 127.0.0.1 under that site's name. They name it in Host, and are refused (421
 * HOST_NOT_ALLOWED) on every route but liveness; loopback names and the HOST the API listens on are answered.
 */
import type { HTTPMethods } from 'fastify';
import { buildApi } from '../../api/app';
import { exposedWithoutTokenWarning } from '../../api/host-check';
import { fakeConsolePorts, fakePorts } from '../support/fake-ports';
import { documentedApi, operations } from './openapi/document';

const CONVERSATION = '6f1d2c3b-4a59-4e8f-9a0b-1c2d3e4f5a6b';
const TURN = `turn-${CONVERSATION}-1`;

const api = (options: { apiToken?: string; host?: string } = {}) =>
  buildApi({
    ports: fakePorts({ conversationId: CONVERSATION, audits: async () => [] }),
    console: fakeConsolePorts(),
    messageMaxBytes: 8192,
    logLevel: 'silent',
    ...options,
  });

/** What a rebinding page reads and does: a conversation, the console's data and actions, the pages themselves. */
const REQUESTS: [HTTPMethods, string][] = [
  ['GET', `/api/v1/conversation/${CONVERSATION}`],
  ['GET', `/api/v1/conversation/audit/${CONVERSATION}`],
  ['GET', '/api/v1/console/conversations'],
  ['POST', `/api/v1/console/turns/${TURN}/actions/retry`],
  ['POST', '/api/v1/conversation/message'],
  ['GET', '/console'],
  ['GET', '/docs'],
  ['GET', '/docs/openapi.json'],
];

const send = (app: ReturnType<typeof api>, method: HTTPMethods, url: string, host: string, token?: string) =>
  app.inject({
    method,
    url,
    headers: { host, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(method === 'POST' ? { payload: { message: 'hi' } } : {}),
  });

describe('without API_TOKEN', () => {
  const app = api({ host: 'convengine.internal' });
  afterAll(async () => app.close());

  it.each(['attacker.example', 'attacker.example:3000', 'localhost.attacker.example', '10.0.0.5:3000'])(
    'refuses every route but liveness and readiness to Host %j with 421 HOST_NOT_ALLOWED',
    async (host) => {
      for (const [method, url] of REQUESTS) {
        const res = await send(app, method, url, host);
        expect([url, res.statusCode, res.json().error.code]).toEqual([url, 421, 'HOST_NOT_ALLOWED']);
      }
      expect((await send(app, 'GET', '/healthz', host)).statusCode).toBe(200);
      expect((await send(app, 'GET', '/readyz', host)).statusCode).not.toBe(421);
    }
  );

  it.each([
    'localhost',
    'localhost:3000',
    'LOCALHOST:3000',
    'console.localhost:3000',
    '127.0.0.1:3000',
    '127.0.0.2',
    '[::1]:3000',
    'convengine.internal:3000',
  ])('answers Host %j', async (host) => {
    for (const url of ['/readyz', `/api/v1/conversation/audit/${CONVERSATION}`, '/console']) {
      expect([url, (await send(app, 'GET', url, host)).statusCode]).toEqual([url, 200]);
    }
  });
});

describe('with API_TOKEN', () => {
  const app = api({ apiToken: 'tok' });
  afterAll(async () => app.close());

  it('leaves Host alone: the token is what a caller needs', async () => {
    const url = `/api/v1/conversation/audit/${CONVERSATION}`;
    expect((await send(app, 'GET', url, 'api.example.com')).statusCode).toBe(401);
    expect((await send(app, 'GET', url, 'api.example.com', 'tok')).statusCode).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  const documented = documentedApi();

  it('lists 421 HOST_NOT_ALLOWED on every route but liveness and readiness', () => {
    for (const { name, op } of operations(documented.doc)) {
      const description = op.responses['421']?.description ?? '';
      expect([name, description.startsWith('HOST_NOT_ALLOWED')]).toEqual([
        name,
        name !== 'GET /healthz' && name !== 'GET /readyz',
      ]);
    }
  });
});

describe('the warning at start', () => {
  it.each([
    ['0.0.0.0', undefined, true],
    ['::', undefined, true],
    ['192.168.1.10', undefined, true],
    ['0.0.0.0', 'tok', false],
    ['127.0.0.1', undefined, false],
    ['localhost', undefined, false],
    ['::1', undefined, false],
    ['[::1]', undefined, false],
  ])('HOST %s, API_TOKEN %s: warns %s', (host, token, warns) => {
    expect(exposedWithoutTokenWarning(host, token) !== null).toBe(warns);
  });
});
