import { request as httpRequest } from 'node:http';
import { seedPacks } from '../../db/seed';
import { ApiHarness, type ApiJson } from '../support/api-harness';

/**
 * The bad-input matrix (issue #12): every route answers hostile input with a 4xx in the one
 * envelope, names the field, never leaks internals, and leaves nothing half-written.
 */
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const INTERNALS = /\bat .*\.(ts|js):\d+|node_modules|stack|Drizzle|QueryError|SELECT |INSERT |pg_|Fastify|FST_/i;

function deep(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { nested: value };
  return value;
}

/** Strings JSON can carry that no turn may: by escape, so the body itself is valid JSON. */
const HOSTILE_STRINGS: [string, string, RegExp][] = [
  ['a NUL byte', 'hi\\u0000there', /NUL/],
  ['a lone high surrogate', 'hi\\ud800there', /surrogate/],
  ['a lone low surrogate', 'hi\\udc00', /surrogate/],
  ['a control character', 'bell\\u0007', /U\+0007/],
  ['an escape character', 'ansi\\u001b[2J', /U\+001B/],
  ['a C1 control', 'next\\u0085line', /U\+0085/],
];

describe('hostile input, every route', () => {
  let h: ApiHarness;
  let conversationId: string;
  beforeAll(async () => {
    h = await ApiHarness.start({ messageMaxBytes: 4096 });
    await seedPacks(h.wf.mcp.deps.db, ['faq']);
    await h.wf.mcp.base.store.refresh();
    const first = await h.request('POST', '/api/v1/conversation/message', { json: { message: 'hello' } });
    expect(first.status).toBe(200);
    conversationId = first.json().conversationId as string;
  });
  afterAll(async () => h?.stop());

  const expectEnvelope = (res: { status: number; body: string; json(): ApiJson }, status: number, code: string) => {
    expect({ status: res.status, code: res.json().error?.code }).toEqual({ status, code });
    expect(typeof res.json().error.message).toBe('string');
    expect(res.body).not.toMatch(INTERNALS);
  };

  const conversationCount = async () =>
    Number((await h.wf.mcp.deps.db.execute('select count(*)::int as n from ce_conversation')).rows[0]?.['n']);

  describe.each(HOSTILE_STRINGS)('%s', (_name, escaped, reason) => {
    const cases: [string, string, string][] = [
      ['message', `{"message": "${escaped}"}`, 'message'],
      ['a string in inputParams', `{"message": "hi", "inputParams": {"note": "${escaped}"}}`, 'inputParams.note'],
      [
        'a string deep in inputParams',
        `{"message": "hi", "inputParams": {"tool_request": {"args": {"q": ["ok", "${escaped}"]}}}}`,
        'inputParams.tool_request.args.q[1]',
      ],
      ['a key in inputParams', `{"message": "hi", "inputParams": {"k${escaped}": 1}}`, 'inputParams'],
    ];
    it.each(cases)(
      'in %s → 400 INVALID_TEXT naming the field, no conversation written',
      async (_where, body, field) => {
        const before = await conversationCount();
        const res = await h.request('POST', '/api/v1/conversation/message', { body });
        expectEnvelope(res, 400, 'INVALID_TEXT');
        expect(res.json().error.details).toEqual({ field });
        expect(res.json().error.message).toMatch(reason);
        expect(await conversationCount()).toBe(before);
      }
    );

    it('in an approval reason → 400 INVALID_TEXT', async () => {
      const res = await h.request('POST', `/api/v1/conversation/${conversationId}/turns/1/approval`, {
        body: `{"decision": "reject", "callIndex": 1, "reason": "${escaped}"}`,
      });
      expectEnvelope(res, 400, 'INVALID_TEXT');
      expect(res.json().error.details).toEqual({ field: 'reason' });
    });
  });

  it.each([
    ['a byte no UTF-8 sequence starts with', [0xff]],
    ['a truncated sequence', [0xc3]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['a surrogate encoded as UTF-8 (CESU)', [0xed, 0xa0, 0x80]],
  ])('refuses a body with %s: 400 INVALID_TEXT, never U+FFFD, no conversation written', async (_name, bytes) => {
    const before = await conversationCount();
    const body = Buffer.concat([Buffer.from('{"message":"hi '), Buffer.from(bytes), Buffer.from(' there"}')]);
    const res = await fetch(`${h.baseUrl}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await res.text();
    expectEnvelope({ status: res.status, body: text, json: () => JSON.parse(text) as ApiJson }, 400, 'INVALID_TEXT');
    expect(JSON.parse(text).error.message).toMatch(/UTF-8/);
    expect(await conversationCount()).toBe(before);
  });

  it('still reads a UTF-8 body that starts with a byte order mark', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"message":"hello ünïcödé"}')]);
    const res = await fetch(`${h.baseUrl}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body,
    });
    expect(res.status === 200 ? 200 : await res.text()).toBe(200);
  });

  it('keeps ordinary text, tabs, newlines and emoji (paired surrogates)', async () => {
    const res = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: 'hello\tthere\nnew line 😀 ünïcödé', inputParams: { note: 'a\r\nb' } },
    });
    expect(res.status === 200 ? 200 : res.body).toBe(200);
  });

  it('refuses inputParams nested too deep with 400 TOO_DEEP', async () => {
    const res = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: 'hi', inputParams: deep(40) },
    });
    expectEnvelope(res, 400, 'TOO_DEEP');
    expect(res.json().error.details.field).toMatch(/^inputParams(\.nested)+$/);
  });

  it('refuses a body over the limit with 413 and an unparseable body with 400', async () => {
    const big = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: 'hi', inputParams: { blob: 'x'.repeat(2 * 1024 * 1024) } },
    });
    expectEnvelope(big, 413, 'BODY_TOO_LARGE');
    expectEnvelope(
      await h.request('POST', '/api/v1/conversation/message', { body: '{"message": "hi",,}' }),
      400,
      'MALFORMED_BODY'
    );
    const poisoned = await h.request('POST', '/api/v1/conversation/message', {
      body: '{"message":"hi","__proto__":{"x":1}}',
    });
    expectEnvelope(poisoned, 400, 'MALFORMED_BODY');
    // Valid JSON: the message must not say it is not, only which names are refused.
    expect(poisoned.json()).toMatchObject({ error: { message: expect.stringContaining('__proto__') } });
  });

  const routes: [string, string, string | undefined][] = [
    ['POST', '/api/v1/conversation/message', '{"message": "hi"}'],
    ['GET', `/api/v1/conversation/${UNKNOWN}`, undefined],
    ['GET', `/api/v1/conversation/audit/${UNKNOWN}`, undefined],
    ['GET', `/api/v1/conversation/audit/${UNKNOWN}/trace`, undefined],
    ['GET', `/api/v1/conversation/${UNKNOWN}/stream`, undefined],
    ['POST', `/api/v1/conversation/${UNKNOWN}/turns/1/approval`, '{"decision": "approve", "callIndex": 1}'],
    ['POST', `/api/v1/admin/turns/turn-${UNKNOWN}-1/retry`, undefined],
    ['POST', '/api/v1/admin/config/refresh', undefined],
    ['GET', '/healthz', undefined],
    ['GET', '/readyz', undefined],
  ];

  it.each(routes)('%s %s: hostile path, content type and JSON all get the envelope', async (method, path) => {
    const hostilePath = path.includes(UNKNOWN) ? path.replace(UNKNOWN, '%00%27%3B--') : `${path}%00`;
    const badPath = await h.request(method, hostilePath);
    expect(badPath.status).toBeGreaterThanOrEqual(400);
    expect(badPath.status).toBeLessThan(500);
    expect(badPath.json().error.code).toEqual(expect.any(String));
    expect(badPath.body).not.toMatch(INTERNALS);
    if (method === 'POST') {
      const wrongType = await h.request(method, path, {
        body: 'a=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectEnvelope(wrongType, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const broken = await h.request(method, path, { body: '{"oops"' });
      expectEnvelope(broken, 400, 'MALFORMED_BODY');
    }
  });

  it('answers oversized headers with 431 in the envelope', async () => {
    const res = await rawRequest(h.baseUrl, '/healthz', { 'x-filler': 'x'.repeat(64 * 1024) });
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) } });
  });

  it('refuses an Idempotency-Key reused with a different body (422), and replays the same body', async () => {
    const key = { 'idempotency-key': `key-${Date.now()}` };
    const body = { conversationId, message: 'hello again' };
    const first = await h.request('POST', '/api/v1/conversation/message', { json: body, headers: key });
    expect(first.status).toBe(200);
    const again = await h.request('POST', '/api/v1/conversation/message', { json: body, headers: key });
    expect(again.status).toBe(200);
    expect(again.json().turn.workflowId).toBe(first.json().turn.workflowId);
    const other = await h.request('POST', '/api/v1/conversation/message', {
      json: { ...body, message: 'hello there' },
      headers: key,
    });
    expectEnvelope(other, 422, 'IDEMPOTENCY_KEY_REUSED');
    const params = await h.request('POST', '/api/v1/conversation/message', {
      json: { ...body, inputParams: { extra: true } },
      headers: key,
    });
    expectEnvelope(params, 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('refuses an Idempotency-Key reused in another conversation (422): a key names one request across the API', async () => {
    const key = { 'idempotency-key': `key-elsewhere-${Date.now()}` };
    const opened = await h.request('POST', '/api/v1/conversation/message', { json: { message: 'hi' }, headers: key });
    expect(opened.status).toBe(200);
    const turnsBefore = (await h.request('GET', `/api/v1/conversation/${conversationId}`)).json();
    const elsewhere = await h.request('POST', '/api/v1/conversation/message', {
      json: { conversationId, message: 'hi' },
      headers: key,
    });
    expectEnvelope(elsewhere, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect((await h.request('GET', `/api/v1/conversation/${conversationId}`)).json()).toEqual(turnsBefore);
    const retried = await h.request('POST', '/api/v1/conversation/message', { json: { message: 'hi' }, headers: key });
    expect(retried.json().turn.workflowId).toBe(opened.json().turn.workflowId);
  });
});

function rawRequest(
  baseUrl: string,
  path: string,
  headers: Record<string, string>
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
