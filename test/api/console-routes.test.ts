import { request } from 'node:http';
import { DECISION_LIMITS } from '../../core/turn/operator-decision';
import { ApiHarness } from '../support/api-harness';
import { answer, callTool, orderConfig } from '../support/order-config';

const TOKEN = 'console-token';

function rawStatus(path: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(`${h.baseUrl}${path}`, { path }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
}
const auth = { authorization: `Bearer ${TOKEN}` };

let h: ApiHarness;

describe('the console API: conversation search, turn story, actions; the static pages and Swagger UI', () => {
  let conversationId: string;
  let workflowId: string;
  beforeAll(async () => {
    h = await ApiHarness.start({ apiToken: TOKEN });
    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order 50%_done.')]);
    const res = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: 'Check order ORD-7017 status, 100% please.' },
      headers: auth,
    });
    expect(res.status).toBe(200);
    conversationId = res.json().conversationId;
    workflowId = res.json().turn.workflowId;
  });
  afterAll(async () => h?.stop());

  const get = (path: string) => h.request('GET', path, { headers: auth });
  const search = async (query: string) => (await get(`/api/v1/console/conversations?${query}`)).json();

  it('serves the console and Swagger UI without the token, and every data route only with it', async () => {
    for (const path of ['/console', '/console/', '/console/app.js', '/docs', '/docs/json', '/docs/openapi.json']) {
      const res = await h.request('GET', path);
      expect([path, res.status]).toEqual([path, 200]);
    }
    expect((await h.request('GET', '/console/app.js')).headers.get('content-type')).toContain('text/javascript');
    expect((await h.request('GET', '/docs')).body).toContain('swagger');
    expect((await h.request('GET', '/docs/json')).json().paths).toHaveProperty(['/api/v1/console/turns/{workflowId}']);
    for (const path of [
      '/api/v1/console/meta',
      '/api/v1/console/conversations',
      `/api/v1/console/turns/${workflowId}`,
    ]) {
      expect([path, (await h.request('GET', path)).status]).toEqual([path, 401]);
    }
    const action = await h.request('POST', `/api/v1/console/turns/${workflowId}/actions/retry`, { json: {} });
    expect(action.status).toBe(401);
  });

  it('serves only the files the console has', async () => {
    for (const path of ['/console/..%2fpackage.json', '/console/lib%2f..%2f..%2fpackage.json', '/console/nope.js']) {
      const res = await h.request('GET', path);
      expect([path, res.status]).toEqual([path, 404]);
    }
    // A raw `..` (no browser sends one; node:http sends the path as it is) reaches no file either.
    for (const path of ['/console/../package.json', '/console/../../etc/passwd', '/console/lib/../../README.md']) {
      expect([path, await rawStatus(path)]).toEqual([path, 404]);
    }
  });

  it('finds a conversation by id prefix or by text, with literal % and _', async () => {
    expect(
      (await search(`q=${conversationId.slice(0, 13)}`)).items.map((c: { conversationId: string }) => c.conversationId)
    ).toContain(conversationId);
    const byText = await search(`q=${encodeURIComponent('100%')}`);
    expect(byText.items).toEqual([
      expect.objectContaining({ conversationId, intent: 'ORDER_DIAGNOSTICS', state: 'COMPLETED', turnCount: 1 }),
    ]);
    expect((await search(`q=${encodeURIComponent('50%_done')}`)).total).toBe(1);
    expect((await search(`q=${encodeURIComponent('5_%')}`)).total).toBe(0);
    expect((await search('intent=ORDER_DIAGNOSTICS&state=COMPLETED&limit=1')).items).toHaveLength(1);
    expect((await search('status=RUNNING')).items.map((c: { conversationId: string }) => c.conversationId)).toContain(
      conversationId
    );
    expect((await search('status=BLOCKED')).total).toBe(0);
  });

  it.each([
    ['an unknown status', 'status=NO_SUCH'],
    ['a status in lower case', 'status=running'],
    ['an empty status', 'status='],
    ['a long one', `status=${'X'.repeat(300)}`],
  ])('refuses %s with 400 INVALID_STATUS naming the statuses', async (_what, query) => {
    const res = await get(`/api/v1/console/conversations?${query}`);
    expect([res.status, res.json().error]).toEqual([
      400,
      {
        code: 'INVALID_STATUS',
        message: 'status must be one of RUNNING, BLOCKED, AWAITING_APPROVAL, HELD.',
        details: { allowed: ['RUNNING', 'BLOCKED', 'AWAITING_APPROVAL', 'HELD'] },
      },
    ]);
  });

  it.each([
    ['limit=0', 'a zero page'],
    ['limit=101', 'an oversized page'],
    ['offset=25', 'an offset (pages follow the cursor)'],
    ['after=-1', 'a cursor the API did not write'],
    ['state=%20%20', 'a blank code'],
    ['sort=x', 'an unknown filter'],
    [`q=${'x'.repeat(201)}`, 'an oversized search'],
  ])('refuses %s (%s) with 400', async (query) => {
    const res = await get(`/api/v1/console/conversations?${query}`);
    expect([res.status, res.json().error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('refuses a search with a control character as INVALID_TEXT', async () => {
    const res = await get(`/api/v1/console/conversations?q=${encodeURIComponent('order\u0000')}`);
    expect([res.status, res.json().error.code]).toEqual([400, 'INVALID_TEXT']);
  });

  it('takes a turn id with an upper-case UUID, as the conversation routes do', async () => {
    const upper = `turn-${conversationId.toUpperCase()}-1`;
    const res = await get(`/api/v1/console/turns/${upper}`);
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ conversationId, turnNumber: 1 });
  });

  it("lists the conversation's turns and tells one turn's story from its history, audit rows joined", async () => {
    const turns = (await get(`/api/v1/console/conversations/${conversationId}/turns`)).json();
    expect(turns.turns).toEqual([
      expect.objectContaining({ workflowId, turnNumber: 1, status: 'COMPLETED', outcome: 'ANSWERED' }),
    ]);
    const turn = (await get(`/api/v1/console/turns/${workflowId}`)).json();
    expect(turn).toMatchObject({
      conversationId,
      turnNumber: 1,
      userInput: 'Check order ORD-7017 status, 100% please.',
      response: { value: 'Done: Order 50%_done.' },
      story: { status: 'COMPLETED', searchAttributes: { TurnOutcome: 'ANSWERED' }, decisions: [] },
      pendingActivities: [],
      pendingApproval: null,
      temporalUiUrl: null,
    });
    const steps = turn.story.timeline.filter((i: { kind: string }) => i.kind === 'step');
    expect(steps.map((s: { type: string }) => s.type)).toEqual(
      expect.arrayContaining(['LoadOrCreateConversation', 'McpPlan', 'McpToolCall', 'PersistConversation'])
    );
    for (const step of steps) expect(step.durationMs).toEqual(expect.any(Number));
    expect(turn.audits.find((a: { stage: string }) => a.stage === 'USER_INPUT').callKey).toMatch(
      /^\d+-AuditUserInput$/
    );
  });

  it('answers 404 for an unknown turn and 400 for a malformed id or action', async () => {
    const missing = await get(`/api/v1/console/turns/turn-${crypto.randomUUID()}-1`);
    expect([missing.status, missing.json().error.code]).toEqual([404, 'TURN_NOT_FOUND']);
    expect((await get('/api/v1/console/turns/not-a-turn')).status).toBe(400);
    const unknown = await h.request('POST', `/api/v1/console/turns/${workflowId}/actions/delete`, {
      json: {},
      headers: auth,
    });
    expect(unknown.status).toBe(400);
    const extra = await h.request('POST', `/api/v1/console/turns/${workflowId}/actions/retry`, {
      json: { force: true },
      headers: auth,
    });
    expect(extra.status).toBe(400);
  });

  it('audits every action, also a refused one', async () => {
    const noActivity = await h.request('POST', `/api/v1/console/turns/${workflowId}/actions/activity-reset`, {
      json: {},
      headers: auth,
    });
    expect([noActivity.status, noActivity.json().error.code]).toEqual([400, 'ACTIVITY_ID_REQUIRED']);
    const done = await h.request('POST', `/api/v1/console/turns/${workflowId}/actions/retry`, {
      json: {},
      headers: auth,
    });
    expect([done.status, done.json().error.code]).toEqual([409, 'TURN_ALREADY_COMPLETED']);
    const turn = (await get(`/api/v1/console/turns/${workflowId}`)).json();
    const actions = turn.audits.filter((a: { stage: string }) => a.stage === 'OPERATOR_ACTION');
    expect(actions.map((a: { payload: unknown }) => a.payload)).toEqual([
      expect.objectContaining({ action: 'activity-reset', result: 'FAILED', failure: 'ACTIVITY_ID_REQUIRED' }),
      expect.objectContaining({ action: 'retry', result: 'FAILED', failure: 'TURN_ALREADY_COMPLETED' }),
    ]);
  });

  it('answers an action on a turn of an unknown conversation with 404 TURN_NOT_FOUND, writing nothing', async () => {
    const unknown = 'turn-00000000-0000-4000-8000-000000000000-1';
    const res = await h.request('POST', `/api/v1/console/turns/${unknown}/actions/retry`, { json: {}, headers: auth });
    expect([res.status, res.json().error.code]).toEqual([404, 'TURN_NOT_FOUND']);
  });

  it("keys each action's audit row itself: a reused X-Request-Id does not rewrite another action's row", async () => {
    const countOf = async () =>
      (await get(`/api/v1/console/turns/${workflowId}`))
        .json()
        .audits.filter((a: { stage: string }) => a.stage === 'OPERATOR_ACTION');
    const before = await countOf();
    const headers = { ...auth, 'x-request-id': 'reused-request-id' };
    await h.request('POST', `/api/v1/console/turns/${workflowId}/actions/retry`, {
      json: { reason: 'first' },
      headers,
    });
    await h.request('POST', `/api/v1/console/turns/${workflowId}/actions/retry`, {
      json: { reason: 'second' },
      headers,
    });
    const after = await countOf();
    expect(after).toHaveLength(before.length + 2);
    expect(after.slice(-2).map((a: { payload: { reason: string } }) => a.payload.reason)).toEqual(['first', 'second']);
  });

  const heldAction = (action: string, json: unknown, headers: Record<string, string> = auth) =>
    h.request('POST', `/api/v1/console/turns/${workflowId}/actions/${action}`, { json, headers });

  it.each([
    ['held-mark-done', 'no result', {}, 'RESULT_REQUIRED'],
    ['held-mark-done', 'a null result', { result: null }, 'RESULT_REQUIRED'],
    ['held-mark-done', 'a boolean result', { result: true }, 'RESULT_INVALID'],
    // An approval names the call the console showed, so a late click cannot approve a later one.
    ['approve', 'no callIndex', {}, 'CALL_INDEX_REQUIRED'],
    ['held-retry', 'a result', { result: { applicationId: 'LA-1' } }, 'RESULT_NOT_ALLOWED'],
    ['held-mark-done', 'a huge result', { result: 'x'.repeat(DECISION_LIMITS.resultBytes) }, 'RESULT_TOO_LARGE'],
    // The console's limits are the turn's (core/turn/operator-decision.ts), not numbers of its own.
    ['held-skip', 'a reason too long', { reason: 'x'.repeat(DECISION_LIMITS.reasonChars + 1) }, 'REASON_TOO_LONG'],
    ['approve', 'a result', { result: { applicationId: 'LA-1' } }, 'RESULT_NOT_ALLOWED'],
    // 0 names a request's direct tool call (runbook §6): a negative index names nothing.
    ['held-skip', 'callIndex -1', { callIndex: -1 }, 'INVALID_CALL_INDEX'],
    ['approve', 'callIndex -1', { callIndex: -1 }, 'INVALID_CALL_INDEX'],
    [
      'reject',
      'a reason too long',
      { callIndex: 1, reason: 'x'.repeat(DECISION_LIMITS.reasonChars + 1) },
      'REASON_TOO_LONG',
    ],
    ['held-mark-done', 'a result with a NUL', { result: { applicationId: 'LA-1\u0000' } }, 'INVALID_TEXT'],
    ['held-fail', 'a callIndex that is text', { callIndex: '1; drop' }, 'INVALID_CALL_INDEX'],
    // Any other field is still the schema's.
    ['held-skip', 'an unknown field', { note: 'x' }, 'VALIDATION_FAILED'],
    ['held-skip', 'a reason with a NUL', { reason: 'upstream\u0000' }, 'INVALID_TEXT'],
  ])('refuses %s with %s as 400', async (action, _what, json, code) => {
    const res = await heldAction(action, json);
    expect([res.status, res.json().error.code]).toEqual([400, code]);
  });

  it('answers held actions only with the token, and refuses one on a turn that is not held (409, audited)', async () => {
    for (const action of ['held-retry', 'held-skip', 'held-fail', 'held-mark-done']) {
      expect([action, (await heldAction(action, { result: {} }, {})).status]).toEqual([action, 401]);
    }
    const before = (await get(`/api/v1/console/turns/${workflowId}`)).json();
    const countOf = (turn: { audits: { stage: string }[] }) =>
      turn.audits.filter((a) => a.stage === 'OPERATOR_ACTION').length;
    const refused = await heldAction('held-mark-done', { result: { applicationId: 'LA-1' }, reason: 'verified' });
    expect([refused.status, refused.json().error.code]).toEqual([409, 'NOT_HELD']);
    const turn = (await get(`/api/v1/console/turns/${workflowId}`)).json();
    expect(turn.heldTool).toBeNull();
    const actions = turn.audits.filter((a: { stage: string }) => a.stage === 'OPERATOR_ACTION');
    expect(actions).toHaveLength(countOf(before) + 1);
    expect(actions.at(-1).payload).toEqual(
      expect.objectContaining({
        action: 'held-mark-done',
        source: 'console',
        reason: 'verified',
        result: 'FAILED',
        failure: 'NOT_HELD',
      })
    );
  });

  it('lists the actions and, without TEMPORAL_UI_URL, no Temporal UI link', async () => {
    const meta = (await get('/api/v1/console/meta')).json();
    expect(meta.temporalUi).toBeNull();
    expect(meta.actions.map((a: { name: string }) => a.name)).toEqual([
      'retry',
      'approve',
      'reject',
      'activity-reset',
      'activity-pause',
      'activity-unpause',
      'held-retry',
      'held-skip',
      'held-fail',
      'held-mark-done',
    ]);
  });
});
