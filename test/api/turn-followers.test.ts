/**
 * Many HTTP callers on one turn (issue #16 item 5). Temporal refuses an execution's 11th in-flight
 * update (`history.maxInFlightUpdates`, enforced by our dev server too), so the gateway must not
 * hold one `awaitMilestone` update per caller: callers on one turn share one per API process.
 */
import type { temporal } from '@temporalio/proto';
import { ApiHarness } from '../support/api-harness';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer, callTool, orderConfig } from '../support/order-config';
import { closedRuns } from '../support/visibility';

const WAITERS = 50;
const LOAN_MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';

/** How many updates of each name the turn's history accepted. */
function acceptedUpdates(events: temporal.api.history.v1.IHistoryEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of events) {
    const name = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
    if (name) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

describe('HTTP callers following one turn', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
  });
  afterAll(async () => h?.stop());

  const send = (json: unknown, headers: Record<string, string> = {}) =>
    h.request('POST', '/api/v1/conversation/message', { json, headers });

  it(`${WAITERS} concurrent callers of one turn all get its answer through one awaitMilestone update`, async () => {
    await h.wf.mcp.configure(loanConfig({ submitNeedsApproval: true }));
    // The planner's step is slow, so every caller is attached before the turn reaches its milestone.
    h.wf.mcp.llm.setScript([
      extracted('CUST-1001'),
      { ...plan('loan.application.submit', 'CUST-1001'), delayMs: 1500 },
      answer('Submitted LA-90311.'),
    ]);
    const conversationId = crypto.randomUUID();
    const replies = await Promise.all(
      Array.from({ length: WAITERS }, () =>
        send({ conversationId, message: LOAN_MESSAGE }, { 'idempotency-key': 'fifty-callers' })
      )
    );
    expect(replies.map((r) => r.status)).toEqual(Array(WAITERS).fill(202));
    const first = replies[0]?.json();
    expect(first).toMatchObject({
      turn: { outcome: 'AWAITING_APPROVAL', number: 1 },
      approval: { toolCode: 'loan.application.submit' },
    });
    for (const reply of replies) expect(reply.json()).toEqual(first);
    const workflowId = first.turn.workflowId as string;
    expect(acceptedUpdates(await h.wf.history(workflowId))).toEqual({ awaitMilestone: 1 });

    // The decision's caller waits for news from after its decision, not the milestone it decided on.
    const decided = await h.request('POST', first.approval.decideWith.url, {
      json: { decision: 'approve', callIndex: first.approval.callIndex },
    });
    expect(decided.status).toBe(200);
    expect(decided.json()).toMatchObject({ payload: { value: 'Submitted LA-90311.' }, turn: { outcome: 'ANSWERED' } });
    expect(acceptedUpdates(await h.wf.history(workflowId))).toEqual({ awaitMilestone: 2, decideApproval: 1 });
  });

  it('retries a failed turn at once: a closed turn id is reusable without waiting out the reuse interval', async () => {
    await h.wf.mcp.configure({
      ...orderConfig(),
      responses: (orderConfig().responses ?? []).filter((r) => r.stateCode !== 'COMPLETED'),
    });
    const script = [callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')];
    h.wf.mcp.llm.setScript(script);
    const failed = await send({ message: 'Check order ORD-7017 status.' });
    expect(failed.json().error.code).toBe('TURN_FAILED');
    const workflowId = failed.json().error.details.workflowId as string;
    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript(script);
    // Straight after the failure, well inside workflowIdReuseMinimalInterval (1 s): the interval only
    // throttles TERMINATE_EXISTING on a running id and continue-as-new, never a closed failed run.
    const retried = await h.request('POST', `/api/v1/admin/turns/${workflowId}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.json()).toMatchObject({ turn: { workflowId, outcome: 'ANSWERED' } });
    const runs = await closedRuns(h.wf.client, `WorkflowId = '${workflowId}'`);
    expect(runs.map((r) => r.status).sort()).toEqual(['COMPLETED', 'FAILED']);
  });
});
