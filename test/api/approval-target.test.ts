/**
 * D16 through the API: a decision names the call it decides. A turn may wait on several calls one after another
 * (here a read, call 1, then the loan submit, call 2): a second approval of call 1 — another operator, or the same
 * request retried — is refused, where it used to approve the submit nobody had seen. And a caller answered 202
 * RUNNING before the turn parked finds the pending call where that 202 sends it: the stream and GET /conversation.
 */
import { ApiHarness, type ApiJson } from '../support/api-harness';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';

const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const RATING = 'loan.credit.rating.check';
const SUBMIT = 'loan.application.submit';

describe('an approval decides the call it names', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start({ replyTimeoutMs: 2000 });
  });
  afterAll(async () => h?.stop());

  const conversation = async (id: string): Promise<ApiJson> =>
    (await h.request('GET', `/api/v1/conversation/${id}`)).json();

  async function pendingOf(id: string, callIndex: number): Promise<ApiJson> {
    for (let i = 0; i < 100; i++) {
      const pending = (await conversation(id)).pendingApproval;
      if (pending?.callIndex === callIndex) return pending;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`GET /conversation/${id} never showed call ${callIndex} pending`);
  }

  async function approvalRows(id: string): Promise<{ stage: string; payload: ApiJson }[]> {
    const rows = (await h.request('GET', `/api/v1/conversation/audit/${id}`)).json() as ApiJson[];
    return rows.filter((r) => r.stage.startsWith('MCP_TOOL_APPROVAL_'));
  }

  it('refuses a second approval of call 1 instead of approving call 2, past a 202 RUNNING', async () => {
    await h.wf.mcp.configure(loanConfig({ submitNeedsApproval: true, rating: { requiresApproval: true } }));
    h.wf.mcp.llm.setScript([
      extracted('CUST-1001'),
      // Slower than TURN_REPLY_TIMEOUT_MS: the caller gets 202 RUNNING before the turn parks.
      { ...plan(RATING, 'CUST-1001'), delayMs: 3000 },
      plan(SUBMIT, 'CUST-1001'),
      answer('Submitted LA-90311.'),
    ]);
    const first = await h.request('POST', '/api/v1/conversation/message', { json: { message: MESSAGE } });
    expect([first.status, first.json().turn.outcome]).toEqual([202, 'RUNNING']);
    const id = first.json().conversationId as string;

    const pending = await pendingOf(id, 1);
    const url = `/api/v1/conversation/${id}/turns/1/approval`;
    expect(pending).toMatchObject({
      turnNumber: 1,
      toolCode: RATING,
      args: { customerId: 'CUST-1001' },
      expiresAt: expect.any(String),
      decideWith: { method: 'POST', url, body: { callIndex: 1 } },
    });
    // The stream has it as the turn parks, not only once decided.
    expect(await approvalRows(id)).toEqual([
      expect.objectContaining({
        stage: 'MCP_TOOL_APPROVAL_REQUESTED',
        payload: expect.objectContaining({ tool_code: RATING, call_index: 1, expires_at: pending.expiresAt }),
      }),
    ]);

    const unnamed = await h.request('POST', url, { json: { decision: 'approve' } });
    expect([unnamed.status, unnamed.json().error.code]).toEqual([400, 'CALL_INDEX_REQUIRED']);

    const approveRating = { decision: 'approve', callIndex: 1, decidedBy: 'sre-amy' };
    const approved = await h.request('POST', url, { json: approveRating });
    expect(approved.status).toBe(202);
    expect(approved.json()).toMatchObject({
      turn: { outcome: 'AWAITING_APPROVAL' },
      approval: { toolCode: SUBMIT, callIndex: 2, decideWith: { url, body: { callIndex: 2 } } },
    });
    const again = await h.request('POST', url, { json: approveRating });
    expect([again.status, again.json().error]).toEqual([
      409,
      { code: 'APPROVAL_ALREADY_DECIDED', message: 'call #1 was already approved.' },
    ]);
    expect(h.wf.mcp.toolServer.counters.totalWriteEffects()).toBe(0);
    expect(await pendingOf(id, 2)).toMatchObject({ toolCode: SUBMIT, turnNumber: 1 });

    const done = await h.request('POST', url, { json: { decision: 'approve', callIndex: 2 } });
    expect([done.status, done.json().payload.value]).toEqual([200, 'Submitted LA-90311.']);
    expect(h.wf.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
    // One request row per call, written as the turn parked; each decision says who made it.
    expect((await approvalRows(id)).map((r) => [r.stage, r.payload.call_index, r.payload.decided_by])).toEqual([
      ['MCP_TOOL_APPROVAL_REQUESTED', 1, undefined],
      ['MCP_TOOL_APPROVAL_GRANTED', 1, 'sre-amy'],
      ['MCP_TOOL_APPROVAL_REQUESTED', 2, undefined],
      ['MCP_TOOL_APPROVAL_GRANTED', 2, 'api'],
    ]);
    expect((await conversation(id)).pendingApproval).toBeNull();
    const late = await h.request('POST', url, { json: { decision: 'reject', callIndex: 2 } });
    // The turn has ended: the refusal says how the call was settled, as the turn's own validator did above.
    expect([late.status, late.json().error]).toEqual([
      409,
      { code: 'APPROVAL_ALREADY_DECIDED', message: 'call #2 was already approved; turn 1 has ended (completed).' },
    ]);
  });

  it('refuses who decided when it is no name: empty, blank, or longer than the held-tool route takes', async () => {
    const url = `/api/v1/conversation/${crypto.randomUUID()}/turns/1/approval`;
    for (const [decidedBy, code] of [
      ['', 'DECIDED_BY_BLANK'],
      ['   ', 'DECIDED_BY_BLANK'],
      ['\t\n', 'DECIDED_BY_BLANK'],
      ['x'.repeat(201), 'DECIDED_BY_TOO_LONG'],
    ]) {
      const res = await h.request('POST', url, { json: { decision: 'approve', callIndex: 1, decidedBy } });
      expect([res.status, res.json().error.code]).toEqual([400, code]);
    }
    const nul = await h.request('POST', url, { json: { decision: 'approve', callIndex: 1, decidedBy: 'a\u0000' } });
    expect([nul.status, nul.json().error.code]).toEqual([400, 'INVALID_TEXT']);
  });
});
