import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApiError } from '../../api/errors';
import type { TurnGateway, TurnReply } from '../../api/ports';
import type { JsonObject } from '../../core/json';
import { decisionLog } from '../support/history';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';
import { decideApprovalUpdate } from '../../workflows/messages';

const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';

function script(finalAnswer?: string) {
  return [
    extracted('CUST-1001'),
    plan('loan.credit.rating.check', 'CUST-1001'),
    plan('loan.application.submit', 'CUST-1001'),
    ...(finalAnswer ? [answer(finalAnswer)] : []),
  ];
}

function awaiting(reply: TurnReply) {
  if (reply.kind !== 'AWAITING_APPROVAL') throw new Error(`expected a parked turn, got ${reply.kind}`);
  return reply;
}

describe('human approval parks the turn durably (D16, issue #6 item 8)', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
  });
  afterAll(async () => h?.stop());
  beforeEach(() => {
    h.mcp.llm.setScript([]);
    h.mcp.toolServer.counters.reset();
  });
  /** An approval of the parked turn's call #2, sent after the turn has ended: what it is refused with. */
  const approveLate = (parked: ReturnType<typeof awaiting>) =>
    h
      .gateway()
      .decideApproval(parked.ref.conversationId, parked.ref.turnNumber, { decision: 'approve', callIndex: 2 })
      .catch((e: unknown) => e);

  it('reports AWAITING_APPROVAL at once, then approve runs the write exactly once', async () => {
    await h.mcp.configure(loanConfig({ submitNeedsApproval: true }));
    h.mcp.llm.setScript(script('Submitted LA-90311.'));
    const parked = awaiting(await h.send({ message: MESSAGE }));
    expect(parked.pending).toMatchObject({
      toolCode: 'loan.application.submit',
      callIndex: 2,
      args: { customerId: 'CUST-1001' },
    });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);

    const { conversationId, turnNumber } = parked.ref;
    const refusal = (decision: Parameters<TurnGateway['decideApproval']>[2]) =>
      h
        .gateway()
        .decideApproval(conversationId, turnNumber, decision)
        .catch((e: unknown) => e);
    // The validator refuses a decision for another call, and text the audit could not store, before history.
    expect(await refusal({ decision: 'approve', callIndex: 9 })).toMatchObject({
      statusCode: 409,
      code: 'STALE_DECISION',
    });
    expect(await refusal({ decision: 'approve', reason: 'ok\u0000' })).toMatchObject({
      statusCode: 400,
      code: 'INVALID_TEXT',
    });
    const done = await h
      .gateway()
      .decideApproval(conversationId, turnNumber, { decision: 'approve', reason: 'checked', decidedBy: 'sre-amy' });
    expect(done.kind).toBe('COMPLETED');
    if (done.kind !== 'COMPLETED') return;
    expect(done.result.payload.value).toBe('Submitted LA-90311.');
    expect(await h.mcp.payload(conversationId, 'MCP_TOOL_APPROVAL_GRANTED')).toMatchObject({ decided_by: 'sre-amy' });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
    expect(decisionLog(await h.history(parked.ref.workflowId))).toEqual([
      'APPROVAL: tool=loan.application.submit reason=APPROVED',
    ]);
  });

  it('reject runs the write zero times and refuses a second decision', async () => {
    await h.mcp.configure(loanConfig({ submitNeedsApproval: true }));
    h.mcp.llm.setScript(script());
    const parked = awaiting(await h.send({ message: MESSAGE }));
    const done = await h
      .gateway()
      .decideApproval(parked.ref.conversationId, parked.ref.turnNumber, { decision: 'reject', reason: 'too risky' });
    expect(done.kind).toBe('COMPLETED');
    if (done.kind !== 'COMPLETED') return;
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);
    expect((done.result.context['mcp'] as JsonObject)['lifecycle']).toMatchObject({ status: 'APPROVAL_REJECTED' });
    const again = await h
      .gateway()
      .decideApproval(parked.ref.conversationId, parked.ref.turnNumber, { decision: 'approve' })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ApiError);
    // The turn has ended; its rows say how the call was settled.
    expect(again).toMatchObject({
      statusCode: 409,
      code: 'APPROVAL_ALREADY_DECIDED',
      message: 'call #2 was already rejected; turn 1 has ended (completed).',
    });
  });

  it('a durable timeout records APPROVAL_EXPIRED and never runs the write', async () => {
    await h.mcp.configure(loanConfig({ submitNeedsApproval: true, approvalTimeoutMs: 1500 }));
    h.mcp.llm.setScript(script());
    const parked = awaiting(await h.send({ message: MESSAGE }));
    const handle = h.client.workflow.getHandle(parked.ref.workflowId);
    const result = (await handle.result()) as { context: JsonObject };
    expect((result.context['mcp'] as JsonObject)['lifecycle']).toMatchObject({ status: 'APPROVAL_EXPIRED' });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);
    const events = await h.history(parked.ref.workflowId);
    expect(events.some((e) => e.timerFiredEventAttributes)).toBe(true);
    const late = await approveLate(parked);
    expect(late).toMatchObject({
      statusCode: 409,
      code: 'APPROVAL_EXPIRED',
      message: 'The approval of call #2 expired; the turn went on without it and has ended (completed).',
    });
  });

  it('an approval that reaches the turn after its expiry, with the timer, is APPROVAL_EXPIRED: the write never runs', async () => {
    await h.mcp.configure(loanConfig({ submitNeedsApproval: true, approvalTimeoutMs: 1500 }));
    h.mcp.llm.setScript(script());
    const parked = awaiting(await h.send({ message: MESSAGE }));
    const handle = h.client.workflow.getHandle(parked.ref.workflowId);
    // No worker while the approval expires: the fired timer and the late update reach the turn in one activation,
    // where the SDK runs updates first, so only the validator's own reading of the clock can refuse it.
    await h.stopWorker();
    await sleep(Date.parse(parked.pending.expiresAt) - Date.now() + 2500);
    const late = handle
      .executeUpdate(decideApprovalUpdate, { args: [{ decision: 'approve', callIndex: 2, decidedBy: 'sre-amy' }] })
      .catch((e: unknown) => e);
    await sleep(500);
    await h.startWorker();
    const refused = await late;
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(/^APPROVAL_EXPIRED: /);
    const result = (await handle.result()) as { context: JsonObject };
    expect((result.context['mcp'] as JsonObject)['lifecycle']).toMatchObject({ status: 'APPROVAL_EXPIRED' });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);
    const events = await h.history(parked.ref.workflowId);
    const accepted = events.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name);
    expect(accepted).not.toContain('decideApproval');
    expect(events.some((e) => e.timerFiredEventAttributes)).toBe(true);
    expect(await h.mcp.payload(parked.ref.conversationId, 'MCP_TOOL_APPROVAL_EXPIRED')).toBeTruthy();
  });

  it('a decision on a turn that ended while its call waited says the call was never decided', async () => {
    await h.mcp.configure(loanConfig({ submitNeedsApproval: true }));
    h.mcp.llm.setScript(script());
    const parked = awaiting(await h.send({ message: MESSAGE }));
    await h.client.workflow.getHandle(parked.ref.workflowId).terminate('operator gave up');
    const late = await approveLate(parked);
    expect(late).toMatchObject({
      statusCode: 409,
      code: 'APPROVAL_NOT_PENDING',
      message: 'Turn 1 ended (terminated) while call #2 waited for an approval: it was never decided.',
    });
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);
  });

  it('refuses decisions for unknown turns and turns that are not waiting', async () => {
    const unknown = await h
      .gateway()
      .decideApproval(crypto.randomUUID(), 1, { decision: 'approve' })
      .catch((e: unknown) => e);
    expect(unknown).toMatchObject({ statusCode: 404, code: 'TURN_NOT_FOUND' });
  });
});
