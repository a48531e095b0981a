/**
 * The turn console on a stale page: an operator approves or rejects the call a page loaded earlier showed, after
 * another operator decided it and the turn moved on to its next call. The action names the page's call
 * (console/views/turn-actions.js sends its callIndex), so it is refused with a 409 and lands on nothing: the turn
 * still waits on the later call, nothing is written upstream, and the attempt is audited as FAILED.
 */
import { ApiHarness, type ApiJson } from '../support/api-harness';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';

const RATING = 'loan.credit.rating.check';
const SUBMIT = 'loan.application.submit';

describe('a console action from a stale turn page (api/routes/console/actions.ts)', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
  });
  afterAll(async () => h?.stop());

  const page = async (workflowId: string): Promise<ApiJson> =>
    (await h.request('GET', `/api/v1/console/turns/${workflowId}`)).json();
  const act = (workflowId: string, action: string, json: ApiJson) =>
    h.request('POST', `/api/v1/console/turns/${workflowId}/actions/${action}`, { json });

  /** The turn page once it shows call `callIndex` waiting for approval. */
  async function pageWaitingOn(workflowId: string, callIndex: number): Promise<ApiJson> {
    for (let i = 0; i < 100; i++) {
      const turn = await page(workflowId);
      if (turn.pendingApproval?.callIndex === callIndex) return turn;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the turn page never showed call ${callIndex} pending`);
  }

  const approvalRows = (turn: ApiJson) =>
    (turn.audits as { stage: string; payload: ApiJson }[])
      .filter((a) => a.stage.startsWith('MCP_TOOL_APPROVAL_'))
      .map((a) => [a.stage, a.payload.call_index]);
  const operatorActions = (turn: ApiJson) =>
    (turn.audits as { stage: string; payload: ApiJson }[]).filter((a) => a.stage === 'OPERATOR_ACTION');

  it('is 409 APPROVAL_ALREADY_DECIDED in the envelope, audited as FAILED, and decides nothing', async () => {
    await h.wf.mcp.configure(loanConfig({ submitNeedsApproval: true, rating: { requiresApproval: true } }));
    h.wf.mcp.llm.setScript([
      extracted('CUST-1001'),
      plan(RATING, 'CUST-1001'),
      plan(SUBMIT, 'CUST-1001'),
      answer('Submitted LA-90311.'),
    ]);
    const first = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: 'Apply loan for customer CUST-1001, amount 350000 for 36 months.' },
    });
    const workflowId = first.json().turn.workflowId as string;
    // Two operators load the turn page while it waits on call 1; one of them approves it.
    const stale = await pageWaitingOn(workflowId, 1);
    const approved = await act(workflowId, 'approve', { callIndex: 1, reason: 'first tab' });
    expect([approved.status, approved.json().approval]).toEqual([202, expect.objectContaining({ callIndex: 2 })]);
    const before = await pageWaitingOn(workflowId, 2);
    expect(approvalRows(before)).toEqual([
      ['MCP_TOOL_APPROVAL_REQUESTED', 1],
      ['MCP_TOOL_APPROVAL_GRANTED', 1],
      ['MCP_TOOL_APPROVAL_REQUESTED', 2],
    ]);

    // The other page still shows call 1: its Approve and Reject name it.
    for (const action of ['approve', 'reject']) {
      const body = { callIndex: stale.pendingApproval.callIndex, reason: 'stale tab' };
      const res = await act(workflowId, action, body);
      expect([action, res.status, res.json()]).toEqual([
        action,
        409,
        { error: { code: 'APPROVAL_ALREADY_DECIDED', message: 'call #1 was already approved.' } },
      ]);
    }

    const after = await page(workflowId);
    // Nothing was decided: call 2 still waits, no approval row was added, the history took no update, no write ran.
    expect(after.pendingApproval).toEqual(before.pendingApproval);
    expect(approvalRows(after)).toEqual(approvalRows(before));
    expect(after.story).toEqual(before.story);
    expect(h.wf.mcp.toolServer.counters.totalWriteEffects()).toBe(0);
    // Each attempt is the operator's OPERATOR_ACTION row, written as STARTED and rewritten as FAILED with the code.
    expect(
      operatorActions(after)
        .slice(operatorActions(before).length)
        .map((a) => a.payload)
    ).toEqual(
      ['approve', 'reject'].map((action) =>
        expect.objectContaining({
          action,
          source: 'console',
          callIndex: 1,
          reason: 'stale tab',
          result: 'FAILED',
          failure: 'APPROVAL_ALREADY_DECIDED',
        })
      )
    );
  });
});
