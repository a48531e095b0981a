import { seedPacks } from '../../db/seed';
import { ApiHarness } from '../support/api-harness';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('bad input gets a specific 4xx, never a 5xx or internals', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start({ messageMaxBytes: 64 });
    await seedPacks(h.wf.mcp.deps.db, ['faq']);
    await h.wf.mcp.base.store.refresh();
  });
  afterAll(async () => h?.stop());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    h.request('POST', path, { body, headers: { 'content-type': 'application/json', ...headers } });

  it.each([
    ['malformed JSON', '{"message": "hi"', 'MALFORMED_BODY'],
    ['empty body', '', 'MALFORMED_BODY'],
    ['missing message', '{}', 'VALIDATION_FAILED'],
    ['message not a string', '{"message": 42}', 'VALIDATION_FAILED'],
    ['empty message', '{"message": ""}', 'VALIDATION_FAILED'],
    ['blank message', '{"message": "   "}', 'MESSAGE_BLANK'],
    ['message over the size limit', JSON.stringify({ message: 'x'.repeat(65) }), 'MESSAGE_TOO_LARGE'],
    ['non-UUID conversation id', '{"message": "hi", "conversationId": "abc"}', 'VALIDATION_FAILED'],
    ['inputParams not an object', '{"message": "hi", "inputParams": [1]}', 'VALIDATION_FAILED'],
    ['reset not a boolean', '{"message": "hi", "reset": "yes please"}', 'VALIDATION_FAILED'],
    ['unknown property', '{"message": "hi", "text": "hi"}', 'VALIDATION_FAILED'],
    // Every _meta audit row carries the session and so the params: a 700 KB object once wrote ~120 MB of audit.
    [
      'inputParams over 16 KiB as JSON',
      JSON.stringify({ message: 'hi', inputParams: { blob: 'x'.repeat(16_400) } }),
      'INPUT_PARAMS_TOO_LARGE',
    ],
  ])('POST message with %s → %s', async (_name, payload, code) => {
    const res = await post('/api/v1/conversation/message', payload);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.json()).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
    expect(res.body).not.toMatch(/\bat .*\.ts:\d+|node_modules|stack/i);
  });

  it('answers a URL whose percent-encoding does not decode in the envelope (400 MALFORMED_URL)', async () => {
    for (const path of ['/api/v1/conversation/%ff%fe', '/healthz%', '/%zz']) {
      const res = await h.request('GET', path);
      expect([path, res.status, res.json()]).toEqual([
        path,
        400,
        { error: { code: 'MALFORMED_URL', message: 'The request URL is not valid (bad percent-encoding).' } },
      ]);
    }
  });

  it('answers a path parameter over the router limit with 414 URL_TOO_LONG, token or not, never 500', async () => {
    const long = 'a'.repeat(101);
    for (const [method, path] of [
      ['GET', `/api/v1/conversation/${long}`],
      ['GET', `/api/v1/conversation/${long}/stream`],
      ['POST', `/api/v1/admin/turns/${long}/retry`],
    ] as const) {
      const res = await h.request(method, path);
      expect([path, res.status, res.json()]).toEqual([
        path,
        414,
        { error: { code: 'URL_TOO_LONG', message: 'A path parameter is longer than 100 characters.' } },
      ]);
    }
    expect((await h.request('GET', `/api/v1/conversation/${'a'.repeat(100)}`)).status).toBe(400);
  });

  it('has no HEAD on the event stream: it would hold a stream slot and never answer', async () => {
    const res = await h.request('HEAD', `/api/v1/conversation/${UNKNOWN}/stream`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });

  it.each(['application/x-www-form-urlencoded', 'text/plain', 'text/plain; charset=utf-8'])(
    'rejects a body sent as %s with 415',
    async (contentType) => {
      const res = await h.request('POST', '/api/v1/conversation/message', {
        body: contentType.startsWith('text') ? '{"message":"hi"}' : 'message=hi',
        headers: { 'content-type': contentType },
      });
      expect(res.status).toBe(415);
      expect(res.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
  );

  it.each([
    'application/json; charset=latin1',
    'application/json; charset=ISO-8859-1',
    'application/json;charset="utf-16"',
    'application/json; charset=utf-8; charset=latin1',
    'application/json; charset=',
  ])('refuses a JSON body declared as %s with 415 UNSUPPORTED_CHARSET, before decoding it', async (contentType) => {
    // "café" in Latin-1: decoded as UTF-8 anyway, the byte 0xE9 would have been a 400 INVALID_TEXT or a wrong text.
    const body = Buffer.concat([Buffer.from('{"message":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await fetch(`${h.baseUrl}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      error: { code: 'UNSUPPORTED_CHARSET', message: expect.stringMatching(/UTF-8/) },
    });
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=UTF-8',
    'application/json;charset=utf8',
    'application/json; charset="UTF-8"',
  ])('reads a JSON body declared as %s', async (contentType) => {
    // The body validator, past the body parser, answers: the charset was accepted.
    const res = await post('/api/v1/conversation/message', '{"message": "café", "text": 1}', {
      'content-type': contentType,
    });
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'body.text is not an allowed property.',
    });
  });

  it.each([
    ['GET', '/api/v1/conversation/not-a-uuid', 400, 'VALIDATION_FAILED'],
    ['GET', `/api/v1/conversation/${UNKNOWN}`, 404, 'CONVERSATION_NOT_FOUND'],
    ['GET', `/api/v1/conversation/audit/${UNKNOWN}`, 404, 'CONVERSATION_NOT_FOUND'],
    ['GET', '/api/v1/conversation/audit/123/trace', 400, 'VALIDATION_FAILED'],
    ['GET', `/api/v1/conversation/${UNKNOWN}/stream`, 404, 'CONVERSATION_NOT_FOUND'],
    ['GET', '/api/v1/nothing-here', 404, 'ROUTE_NOT_FOUND'],
    ['POST', '/api/v1/admin/turns/not-a-turn/retry', 400, 'INVALID_TURN_ID'],
    ['POST', `/api/v1/admin/turns/turn-${UNKNOWN}-1/retry`, 404, 'TURN_NOT_FOUND'],
  ])('%s %s → %i %s', async (method, path, status, code) => {
    const res = await h.request(method, path);
    expect(res.status).toBe(status);
    expect(res.json().error.code).toBe(code);
  });

  it.each([
    // Not GET and HEAD: the GET route reads the path as a conversation id, which "message" is not.
    ['PUT', '/api/v1/conversation/message', 'POST'],
    ['GET', '/api/v1/conversation/message', 'POST'],
    ['DELETE', `/api/v1/conversation/${UNKNOWN}`, 'GET, HEAD'],
    ['POST', '/healthz', 'GET, HEAD'],
  ])('%s %s → 405 with Allow: %s', async (method, path, allow) => {
    const res = await h.request(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.json().error).toEqual({ code: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on ${path}.` });
  });

  it.each([
    ['a plain token', 'gw-2026.11.28:abc_1', true],
    ['3,000 characters', 'x'.repeat(3_000), false],
    ['spaces and quotes', 'a b "c"', false],
  ])('takes a caller X-Request-Id that is %s only when it is a short plain token', async (_case, id, kept) => {
    const res = await h.request('GET', '/healthz', { headers: { 'x-request-id': id } });
    const echoed = res.headers.get('x-request-id') ?? '';
    if (kept) expect(echoed).toBe(id);
    else expect(echoed).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('validates approval decisions before touching the turn', async () => {
    const ok = await post('/api/v1/conversation/message', '{"message": "hi"}');
    expect(ok.status).toBe(200);
    const id = ok.json().conversationId as string;
    const bad = await post(`/api/v1/conversation/${id}/turns/1/approval`, '{"decision": "maybe"}');
    expect([bad.status, bad.json().error.code]).toEqual([400, 'INVALID_DECISION']);
    // Any other unknown field is refused by the schema, as before.
    const note = await post(
      `/api/v1/conversation/${id}/turns/1/approval`,
      '{"decision": "approve", "callIndex": 1, "note": 1}'
    );
    expect([note.status, note.json().error.code, note.json().error.message]).toEqual([
      400,
      'VALIDATION_FAILED',
      expect.stringContaining('note'),
    ]);
    const approve = '{"decision": "approve", "callIndex": 1}';
    const zero = await post(`/api/v1/conversation/${id}/turns/0/approval`, approve);
    expect(zero.status).toBe(400);
    // A decision names the call it decides (the 202's approval.callIndex): without one it decides nothing.
    const unnamed = await post(`/api/v1/conversation/${id}/turns/1/approval`, '{"decision": "approve"}');
    expect([unnamed.status, unnamed.json().error.code]).toEqual([400, 'CALL_INDEX_REQUIRED']);
    const unknownTurn = await post(`/api/v1/conversation/${id}/turns/7/approval`, approve);
    expect([unknownTurn.status, unknownTurn.json().error.code]).toEqual([404, 'TURN_NOT_FOUND']);
    const finished = await post(`/api/v1/conversation/${id}/turns/1/approval`, approve);
    expect([finished.status, finished.json().error]).toEqual([
      409,
      { code: 'APPROVAL_NOT_PENDING', message: 'Turn 1 has ended (completed) with no approval of call #1 recorded.' },
    ]);
    const unknownConversation = await post(
      `/api/v1/conversation/${UNKNOWN}/turns/1/approval`,
      '{"decision": "reject", "callIndex": 1}'
    );
    expect(unknownConversation.status).toBe(404);
  });

  // An outsider's decisions got VALIDATION_FAILED where config-reference.md "Deciding an approval" lists these codes.
  it.each([
    ['a result', 'RESULT_NOT_ALLOWED', 'result', '{"decision": "approve", "callIndex": 4, "result": {}}'],
    ['a negative callIndex', 'INVALID_CALL_INDEX', 'callIndex', '{"decision": "approve", "callIndex": -1}'],
    ['a fractional callIndex', 'INVALID_CALL_INDEX', 'callIndex', '{"decision": "approve", "callIndex": 1.5}'],
    ['an unknown decision', 'INVALID_DECISION', 'decision', '{"decision": "maybe", "callIndex": 1}'],
    ['no decision', 'INVALID_DECISION', 'decision', '{"callIndex": 1}'],
    ['a list', 'INVALID_DECISION', 'decision', '[]'],
    [
      'a long decidedBy',
      'DECIDED_BY_TOO_LONG',
      'decidedBy',
      JSON.stringify({ decision: 'reject', callIndex: 1, decidedBy: 'x'.repeat(201) }),
    ],
    [
      'a long reason',
      'REASON_TOO_LONG',
      'reason',
      JSON.stringify({ decision: 'reject', callIndex: 1, reason: 'x'.repeat(2001) }),
    ],
    // Characters are code points, as the schema's maxLength counts them: 2001 emoji are 2001, not 4002.
    [
      'a long reason of emoji',
      'REASON_TOO_LONG',
      'reason',
      JSON.stringify({ decision: 'reject', callIndex: 1, reason: '😀'.repeat(2001) }),
    ],
    ['a blank decidedBy', 'DECIDED_BY_BLANK', 'decidedBy', '{"decision": "approve", "callIndex": 1, "decidedBy": " "}'],
  ])(
    'answers an approval with %s: 400 %s (field %s), before looking for the conversation',
    async (_case, code, field, body) => {
      const res = await post(`/api/v1/conversation/${UNKNOWN}/turns/1/approval`, body);
      expect([res.status, res.json().error]).toEqual([400, expect.objectContaining({ code, details: { field } })]);
    }
  );

  it('takes a reason and a decidedBy up to their limits in characters, an emoji one character', async () => {
    const body = { decision: 'reject', callIndex: 1, reason: '😀'.repeat(2000), decidedBy: '👩‍💻'.repeat(50) };
    const res = await post(`/api/v1/conversation/${UNKNOWN}/turns/1/approval`, JSON.stringify(body));
    expect([res.status, res.json().error.code]).toEqual([404, 'CONVERSATION_NOT_FOUND']);
  });
});
