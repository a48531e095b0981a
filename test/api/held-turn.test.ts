import { DECISION_LIMITS } from '../../core/turn/operator-decision';
import { DEFAULT_RESERVED_TEXTS } from '../../core/response/reserved';
import { responseRow } from '../support/config-rows';
import { extracted, LOAN, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { ApiHarness } from '../support/api-harness';

const LOAN_MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const SUBMIT = '/loan/applications';
const HOLD = { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 };

/** Issue #22 over HTTP: the held 202, 409 for the next message, the admin actions, the final reply. */
describe('a held turn over the API (issue #22)', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start({ apiToken: 'sre-token' });
  });
  afterAll(async () => h?.stop());
  beforeEach(() => {
    h.wf.mcp.setHandlers({});
    h.wf.mcp.toolServer.counters.reset();
    h.wf.mcp.toolServer.faults.set(SUBMIT, { failTimes: 1_000, status: 503 });
    h.wf.mcp.llm.setScript([
      extracted('CUST-1001'),
      plan('loan.application.submit', 'CUST-1001'),
      answer('Submitted LA-90311.'),
    ]);
  });

  const auth = { authorization: 'Bearer sre-token' };
  const send = (json: unknown) => h.request('POST', '/api/v1/conversation/message', { json, headers: auth });

  it('202 held reply → 409 with the held turn → admin retry → final reply in GET /conversation and on SSE', async () => {
    await h.wf.mcp.configure(loanConfig({ submit: HOLD }));
    const held = await send({ message: LOAN_MESSAGE });
    expect(held.status).toBe(202);
    const body = held.json();
    expect(body.turn.outcome).toBe('HELD');
    expect(body.held).toMatchObject({ toolCode: 'loan.application.submit', callIndex: 1 });
    expect(body.payload).toEqual({ type: 'TEXT', value: DEFAULT_RESERVED_TEXTS.TOOL_HELD });
    const { conversationId } = body;
    const workflowId = body.turn.workflowId;

    const next = await send({ conversationId, message: 'any news?' });
    expect(next.status).toBe(409);
    expect(next.json().error).toMatchObject({ code: 'TURN_IN_PROGRESS', details: { workflowId } });

    const unauthorised = await h.request('GET', '/api/v1/admin/turns/held');
    expect(unauthorised.status).toBe(401);
    const listed = await h.request('GET', '/api/v1/admin/turns/held', { headers: auth });
    expect(listed.json().turns.map((t: { workflowId: string }) => t.workflowId)).toContain(workflowId);

    const bad = await h.request('POST', `/api/v1/admin/turns/${workflowId}/held-tool`, {
      json: { action: 'markDone' },
      headers: auth,
    });
    expect([bad.status, bad.json().error.code]).toEqual([400, 'RESULT_REQUIRED']);
    // The turn's own limits (core/turn/operator-decision.ts): a result with retry was dropped silently, and a
    // result up to the 1 MiB body landed in history and the audit row.
    for (const [json, code] of [
      [{ action: 'retry', result: { applicationId: 'LA-1' } }, 'RESULT_NOT_ALLOWED'],
      [{ action: 'markDone', result: 'x'.repeat(DECISION_LIMITS.resultBytes) }, 'RESULT_TOO_LARGE'],
      // A verified result says what happened upstream: null is none, a number or blank text says nothing of it.
      [{ action: 'markDone', result: null }, 'RESULT_REQUIRED'],
      [{ action: 'markDone', result: 7 }, 'RESULT_INVALID'],
      [{ action: 'markDone', result: ' ' }, 'RESULT_INVALID'],
      // Each limit's own code, as the approval route answers it, not the schema's VALIDATION_FAILED.
      [{ action: 'skip', reason: 'x'.repeat(DECISION_LIMITS.reasonChars + 1) }, 'REASON_TOO_LONG'],
      [{ action: 'skip', decidedBy: 'x'.repeat(DECISION_LIMITS.decidedByChars + 1) }, 'DECIDED_BY_TOO_LONG'],
      [{ action: 'skip', callIndex: -1 }, 'INVALID_CALL_INDEX'],
      [{ action: 'skip', callIndex: 1.5 }, 'INVALID_CALL_INDEX'],
      [{ action: 'skip', reason: 7 }, 'INVALID_DECISION'],
      // Any other field is still the schema's.
      [{ action: 'skip', note: 'x' }, 'VALIDATION_FAILED'],
      [{ action: 'skip', decidedBy: '' }, 'DECIDED_BY_BLANK'],
      [{ action: 'skip', decidedBy: '  ' }, 'DECIDED_BY_BLANK'],
    ] as const) {
      const refused = await h.request('POST', `/api/v1/admin/turns/${workflowId}/held-tool`, { json, headers: auth });
      expect([refused.status, refused.json().error.code]).toEqual([400, code]);
    }
    // PostgreSQL cannot store NUL: a decision carrying one would fail the held turn's audit write for good.
    for (const unsafe of [
      { action: 'retry', reason: 'ok\u0000' },
      { action: 'retry', decidedBy: '\u0000' },
      { action: 'markDone', result: { applicationId: 'LA-1\u0000' } },
    ]) {
      const refused = await h.request('POST', `/api/v1/admin/turns/${workflowId}/held-tool`, {
        json: unsafe,
        headers: auth,
      });
      expect([refused.status, refused.json().error.code]).toEqual([400, 'INVALID_TEXT']);
    }
    const hostile = await h.request('POST', `/api/v1/admin/turns/${workflowId}/held-tool`, {
      json: { action: 'drop table' },
      headers: auth,
    });
    expect([hostile.status, hostile.json().error.code]).toEqual([400, 'INVALID_DECISION']);

    h.wf.mcp.toolServer.faults.clear(SUBMIT);
    const retried = await h.request('POST', `/api/v1/admin/turns/${workflowId}/held-tool`, {
      json: { action: 'retry', decidedBy: 'sre-bob' },
      headers: auth,
    });
    expect(retried.json()).toMatchObject({ accepted: true, action: 'retry', toolCode: 'loan.application.submit' });
    await h.wf.client.workflow.getHandle(workflowId).result();

    const conversation = (await h.request('GET', `/api/v1/conversation/${conversationId}`, { headers: auth })).json();
    expect(JSON.stringify(conversation.lastAssistant)).toContain('Submitted LA-90311.');
    const stream = await h.request('GET', `/api/v1/conversation/${conversationId}/stream`, { headers: auth });
    const stages = [...stream.body.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(stages).toEqual(expect.arrayContaining(['TOOL_HELD', 'TOOL_HOLD_RESOLVED', 'ASSISTANT_OUTPUT']));
    expect(h.wf.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
  });

  it('the held text comes from ce_response (intent, TOOL_HELD) when there is one', async () => {
    const config = loanConfig({ submit: HOLD });
    const text = 'Your application for {{toolCode}} is queued with our back office.';
    config.responses = [
      ...(config.responses ?? []),
      responseRow({ intentCode: LOAN, stateCode: 'TOOL_HELD', exactText: text }),
    ];
    await h.wf.mcp.configure(config);
    const held = await send({ message: LOAN_MESSAGE });
    expect(held.status).toBe(202);
    expect(held.json().payload.value).toBe(
      'Your application for loan.application.submit is queued with our back office.'
    );
    const workflowId = held.json().turn.workflowId;
    const skipped = await h.request('POST', `/api/v1/admin/turns/${workflowId}/held-tool`, {
      json: { action: 'skip' },
      headers: auth,
    });
    expect(skipped.status).toBe(200);
  });

  it('a decision on a finished turn is 409 NOT_HELD on the admin and the console route; no turn at all is 404', async () => {
    await h.wf.mcp.configure(loanConfig({ submit: HOLD }));
    const held = await send({ message: LOAN_MESSAGE });
    expect(held.status).toBe(202);
    const { conversationId } = held.json();
    const workflowId: string = held.json().turn.workflowId;
    const admin = (id: string) =>
      h.request('POST', `/api/v1/admin/turns/${id}/held-tool`, { json: { action: 'skip' }, headers: auth });
    const console = (id: string) =>
      h.request('POST', `/api/v1/console/turns/${id}/actions/held-skip`, { json: {}, headers: auth });
    expect((await admin(workflowId)).status).toBe(200);
    await h.wf.client.workflow.getHandle(workflowId).result();

    for (const [route, res] of [
      ['admin', await admin(workflowId)],
      ['console', await console(workflowId)],
    ] as const) {
      expect([route, res.status, res.json().error.code]).toEqual([route, 409, 'NOT_HELD']);
    }
    // The conversation exists, its turn 9 does not.
    const missing = `turn-${conversationId}-9`;
    for (const [route, res] of [
      ['admin', await admin(missing)],
      ['console', await console(missing)],
    ] as const) {
      expect([route, res.status, res.json().error.code]).toEqual([route, 404, 'TURN_NOT_FOUND']);
    }
  });
});
