/**
 * Operators' view of parked turns while no worker runs: a decision waits OPERATOR_DECISION_TIMEOUT_MS and is then
 * 503 WORKER_UNAVAILABLE (and `convengine sre` exits 1), saying it may still be applied; the approvers' queue, the
 * held list and the console's turn page still show the call the turn waits on, from its memo (workflows/park.ts): no
 * worker is asked. The worker that comes back applies the decision the caller gave up on: Temporal cannot withdraw an
 * update it admitted.
 */
import { ApiHarness } from '../support/api-harness';
import { runSre } from '../support/held-turn-suite';
import { extracted, LOAN, loanConfig, plan, scriptSubmitAwaitingApproval } from '../support/loan-config';
import { answer } from '../support/order-config';

const LOAN_MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const SUBMIT = '/loan/applications';
const HOLD = { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 };
const DECISION_TIMEOUT_MS = 1_500;
/** The decision's deadline, with room for a slow machine. */
const PROMPTLY_MS = 12_000;

describe('parked turns while no worker polls', () => {
  let h: ApiHarness;
  const auth = { authorization: 'Bearer sre-token' };
  const send = (json: unknown) => h.request('POST', '/api/v1/conversation/message', { json, headers: auth });
  const timed = async <T>(run: () => Promise<T>): Promise<{ took: number; value: T }> => {
    const started = Date.now();
    const value = await run();
    return { took: Date.now() - started, value };
  };

  beforeAll(async () => {
    h = await ApiHarness.start({ apiToken: 'sre-token', decisionTimeoutMs: DECISION_TIMEOUT_MS });
  });
  afterAll(async () => h?.stop());
  afterEach(async () => h.wf.startWorker());

  it('an approval is 503 WORKER_UNAVAILABLE after the deadline, the page and the queue show it, a worker applies it', async () => {
    await scriptSubmitAwaitingApproval(h.wf.mcp);
    const parked = await send({ message: LOAN_MESSAGE });
    expect(parked.status).toBe(202);
    const { conversationId, turn } = parked.json();
    await h.wf.stopWorker();

    const page = await timed(() => h.request('GET', `/api/v1/console/turns/${turn.workflowId}`, { headers: auth }));
    expect(page.took).toBeLessThan(PROMPTLY_MS);
    expect(page.value.status).toBe(200);
    const pending = { toolCode: 'loan.application.submit', callIndex: parked.json().approval.callIndex };
    expect(page.value.json()).toMatchObject({ pendingApproval: pending, story: { status: 'RUNNING' } });
    expect(page.value.json().waitingUnavailable).toBeNull();

    // The approvers' queue lists the turn with its call, from visibility alone.
    const queue = await timed(() => h.request('GET', '/api/v1/admin/turns/awaiting-approval', { headers: auth }));
    expect(queue.took).toBeLessThan(PROMPTLY_MS);
    const queued = queue.value.json().turns.find((t: { workflowId: string }) => t.workflowId === turn.workflowId);
    expect(queued).toMatchObject({ conversationId, approval: pending });
    expect(queued).not.toHaveProperty('unavailable');
    const listed = await runSre(['approvals', ...h.wf.serverArgs()]);
    expect(listed.out).toContain(`${turn.workflowId}  ${pending.toolCode} (call ${pending.callIndex}) awaits approval`);
    // Exit 0 unless turns parked by an older worker are listed too: on the real server the namespace is shared with
    // other suites, whose parked turns outlive their workers.
    expect(listed.code).toBe(listed.err.length === 0 ? 0 : 1);

    const decided = await timed(() =>
      h.request('POST', `/api/v1/conversation/${conversationId}/turns/${turn.number}/approval`, {
        json: { decision: 'approve', reason: 'checked', callIndex: parked.json().approval.callIndex },
        headers: auth,
      })
    );
    expect(decided.took).toBeLessThan(PROMPTLY_MS);
    expect(decided.value.status).toBe(503);
    expect(decided.value.json().error).toMatchObject({
      code: 'WORKER_UNAVAILABLE',
      details: { workflowId: turn.workflowId, decisionSent: true },
    });
    expect(decided.value.json().error.message).toMatch(/may still be applied when a worker returns/);
    expect(h.wf.mcp.toolServer.counters.totalWriteEffects()).toBe(0);

    // The decision the caller gave up on is applied by the worker that comes back.
    await h.wf.startWorker();
    await h.wf.client.workflow.getHandle(turn.workflowId).result();
    expect(await h.wf.mcp.payload(conversationId, 'MCP_TOOL_APPROVAL_GRANTED')).toMatchObject({ reason: 'checked' });
    expect(h.wf.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
  });

  it('held turns are listed with their call by the API and `convengine sre list`; sre skip exits 1', async () => {
    await h.wf.mcp.configure(loanConfig({ submit: HOLD }));
    h.wf.mcp.toolServer.faults.set(SUBMIT, { failTimes: 1_000, status: 503 });
    h.wf.mcp.llm.setScript([extracted('CUST-1001'), plan('loan.application.submit', 'CUST-1001'), answer('Done.')]);
    const parked = await send({ message: LOAN_MESSAGE });
    expect(parked.status).toBe(202);
    const workflowId: string = parked.json().turn.workflowId;
    await h.wf.stopWorker();

    const listed = await timed(() => h.request('GET', '/api/v1/admin/turns/held', { headers: auth }));
    expect(listed.took).toBeLessThan(PROMPTLY_MS);
    expect(listed.value.status).toBe(200);
    const entry = listed.value.json().turns.find((t: { workflowId: string }) => t.workflowId === workflowId);
    expect(entry).toMatchObject({ held: { toolCode: 'loan.application.submit', attempts: 2 }, intent: LOAN });
    expect(entry).not.toHaveProperty('unavailable');

    const cli = h.wf.serverArgs();
    const list = await runSre(['list', ...cli]);
    expect(list.code).toBe(0);
    expect(list.out.join('\n')).toContain(`${workflowId}  loan.application.submit`);
    expect(list.err).toEqual([]);

    const previous = process.env['OPERATOR_DECISION_TIMEOUT_MS'];
    process.env['OPERATOR_DECISION_TIMEOUT_MS'] = String(DECISION_TIMEOUT_MS);
    try {
      const skip = await timed(() => runSre(['skip', '--workflow-id', workflowId, ...cli]));
      expect(skip.took).toBeLessThan(PROMPTLY_MS);
      expect(skip.value.code).toBe(1);
      expect(skip.value.err.join('\n')).toMatch(/^sre skip: Turn .* may still be applied when a worker returns/);
    } finally {
      if (previous === undefined) delete process.env['OPERATOR_DECISION_TIMEOUT_MS'];
      else process.env['OPERATOR_DECISION_TIMEOUT_MS'] = previous;
    }

    await h.wf.startWorker();
    await h.wf.client.workflow.getHandle(workflowId).result();
    expect(await h.wf.mcp.payload(parked.json().conversationId, 'TOOL_HOLD_RESOLVED')).toMatchObject({
      action: 'skip',
    });
  });
});
