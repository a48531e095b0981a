/**
 * Two deployments on one Temporal namespace, each with its own task queue and its own database: neither attaches
 * to, reports, runs or shows the other's turns, whatever their turn ids or idempotency keys have in common.
 */
import { awaitingApprovalQuery } from '../../api/turns/approval-queue';
import { temporalHeldTools } from '../../api/turns/held-tools';
import { historyCommand } from '../../cli/commands/history';
import { loadEnv } from '../../config/env';
import { findTurnClaim } from '../../db/repositories/turn-request';
import { conversationIdForKey } from '../../api/turns/turn-id';
import { requestHash } from '../../api/turns/turn-claim';
import { ApiHarness } from '../support/api-harness';
import { runSre } from '../support/held-turn-suite';
import { extracted, LOAN_MESSAGE, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { getSetUpTestTemporal, type TestTemporal } from '../support/temporal';

const SUBMIT = 'loan.application.submit';

describe('two deployments on one Temporal namespace', () => {
  let temporal: TestTemporal;
  let a: ApiHarness;
  let b: ApiHarness;
  const suffix = `${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    temporal = await getSetUpTestTemporal();
    a = await ApiHarness.start({ temporal, taskQueue: `shared-a-${suffix}` });
    b = await ApiHarness.start({ temporal, taskQueue: `shared-b-${suffix}` });
    for (const h of [a, b]) await h.wf.mcp.configure(loanConfig({ submitNeedsApproval: true }));
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await temporal?.stop();
  });

  /** A first message (no conversationId) parking on the submit's approval for `customerId`, with `key`. */
  const park = async (h: ApiHarness, key: string, customerId: string) => {
    h.wf.mcp.llm.setScript([extracted(customerId), plan(SUBMIT, customerId), answer('Not submitted.')]);
    return h.request('POST', '/api/v1/conversation/message', {
      json: { message: LOAN_MESSAGE },
      headers: { 'idempotency-key': key },
    });
  };
  const reject = (h: ApiHarness, parked: { conversationId: string; approval: { callIndex: number } }) =>
    h.request('POST', `/api/v1/conversation/${parked.conversationId}/turns/1/approval`, {
      json: { decision: 'reject', callIndex: parked.approval.callIndex, decidedBy: 'approver-ann' },
    });
  const queueOf = async (h: ApiHarness, workflowId: string) =>
    (await h.wf.client.workflow.getHandle(workflowId).describe()).taskQueue;

  it("runs its own turn for a key the other deployment used, whether that one's turn is parked or completed", async () => {
    const key = `shared-${crypto.randomUUID()}`;
    const first = await park(a, key, 'CUST-1001');
    expect([first.status, first.json().turn.outcome]).toEqual([202, 'AWAITING_APPROVAL']);
    const onA = first.json();

    const second = await park(b, key, 'CUST-2002');
    expect([second.status, second.json().turn.outcome]).toEqual([202, 'AWAITING_APPROVAL']);
    const onB = second.json();
    expect(onB.conversationId).not.toBe(onA.conversationId);
    expect(onB.approval.args).toEqual({ customerId: 'CUST-2002' });
    expect(await queueOf(b, onB.turn.workflowId)).toBe(b.wf.taskQueue);
    const claim = await findTurnClaim(b.wf.mcp.deps.db, key);
    expect(claim).toMatchObject({ conversationId: onB.conversationId, workflowId: onB.turn.workflowId });
    // The same request again on each: its own turn back.
    expect((await park(b, key, 'CUST-2002')).json().turn.workflowId).toBe(onB.turn.workflowId);
    expect((await park(a, key, 'CUST-1001')).json().turn.workflowId).toBe(onA.turn.workflowId);

    // A key whose turn completed on A is a new request on B, never CONVERSATION_RETIRED.
    expect((await reject(a, onA)).status).toBe(200);
    expect((await reject(b, onB)).status).toBe(200);
    const done = `done-${crypto.randomUUID()}`;
    const completed = await park(a, done, 'CUST-1001');
    expect((await reject(a, completed.json())).status).toBe(200);
    const onBAfter = await park(b, done, 'CUST-2002');
    expect([onBAfter.status, onBAfter.json().turn?.outcome]).toEqual([202, 'AWAITING_APPROVAL']);
    expect(onBAfter.json().conversationId).not.toBe(completed.json().conversationId);
    expect((await reject(b, onBAfter.json())).status).toBe(200);
  });

  it('refuses a turn id that is a workflow of the other deployment (422 CONVERSATION_ID_TAKEN), claiming nothing', async () => {
    const parked = (await park(a, `taken-${crypto.randomUUID()}`, 'CUST-1001')).json();
    const key = `taken-on-b-${crypto.randomUUID()}`;
    const sent = await b.request('POST', '/api/v1/conversation/message', {
      json: { conversationId: parked.conversationId, message: LOAN_MESSAGE },
      headers: { 'idempotency-key': key },
    });
    expect([sent.status, sent.json().error.code]).toEqual([422, 'CONVERSATION_ID_TAKEN']);
    expect(sent.body).not.toContain(a.wf.taskQueue);
    expect(await findTurnClaim(b.wf.mcp.deps.db, key)).toBeNull();
    expect((await reject(a, parked)).status).toBe(200);
  });

  it("erases only its own deployment's turn runs of a conversation id: the other's runs of that id stay", async () => {
    const parked = (await park(a, `erase-${crypto.randomUUID()}`, 'CUST-1001')).json();
    expect((await reject(a, parked)).status).toBe(200);
    const id = parked.conversationId as string;
    // B's database names the same id too, one turn committed (a client reusing ids across deployments).
    await b.wf.mcp.deps.db.$client.query('INSERT INTO ce_conversation (conversation_id, turn_count) VALUES ($1, 1)', [
      id,
    ]);
    const erased = await b.request('DELETE', `/api/v1/admin/conversations/${id}`);
    expect([erased.status, erased.json().executionsDeleted]).toEqual([200, 0]);
    expect((await a.wf.client.workflow.getHandle(`turn-${id}-1`).describe()).status.name).toBe('COMPLETED');
    expect((await a.request('GET', `/api/v1/console/turns/turn-${id}-1`)).status).toBe(200);
  });

  it("refuses to re-run the other deployment's failed turn under its id (422 CONVERSATION_ID_TAKEN)", async () => {
    const parked = (await park(a, `ended-${crypto.randomUUID()}`, 'CUST-1001')).json();
    const handle = a.wf.client.workflow.getHandle(parked.turn.workflowId);
    await handle.terminate('the turn ends unfinished: its id may be re-run');
    const { runId } = await handle.describe();
    b.wf.mcp.llm.setScript([extracted('CUST-2002'), plan(SUBMIT, 'CUST-2002'), answer('Not submitted.')]);
    const sent = await b.request('POST', '/api/v1/conversation/message', {
      json: { conversationId: parked.conversationId, message: LOAN_MESSAGE },
    });
    expect([sent.status, sent.json().error?.code]).toEqual([422, 'CONVERSATION_ID_TAKEN']);
    const after = await handle.describe();
    expect([after.runId, after.status.name, after.taskQueue]).toEqual([runId, 'TERMINATED', a.wf.taskQueue]);
    // Its own deployment's next message still re-runs it.
    a.wf.mcp.llm.setScript([extracted('CUST-1001'), plan(SUBMIT, 'CUST-1001'), answer('Not submitted.')]);
    const own = await a.request('POST', '/api/v1/conversation/message', {
      json: { conversationId: parked.conversationId, message: LOAN_MESSAGE },
    });
    expect([own.status, own.json().turn.outcome, own.json().turn.workflowId]).toEqual([
      202,
      'AWAITING_APPROVAL',
      parked.turn.workflowId,
    ]);
    expect((await reject(a, own.json())).status).toBe(200);
  });

  it("keeps a key's conversation across the upgrade of a deployment on another queue than the default", async () => {
    // A request of the build before: its claim names the unscoped id; the turn never started (the API crashed).
    const key = `upgrade-${crypto.randomUUID()}`;
    const unscoped = conversationIdForKey(key, 'convengine-turns');
    expect(conversationIdForKey(key, b.wf.taskQueue)).not.toBe(unscoped);
    const request = { conversationId: unscoped, message: LOAN_MESSAGE, inputParams: {}, reset: false };
    const hash = requestHash({ ...request, idempotencyKey: key, requestContext: {} });
    await b.wf.mcp.deps.db.$client.query(
      `INSERT INTO ce_turn_request (conversation_id, idempotency_key, turn_number, workflow_id, request_hash)
       VALUES ($1, $2, 1, $3, $4)`,
      [unscoped, key, `turn-${unscoped}-1`, hash]
    );
    const retried = await park(b, key, 'CUST-2002');
    expect([retried.status, retried.json().conversationId]).toEqual([202, unscoped]);
    expect((await reject(b, retried.json())).status).toBe(200);
  });

  it("opens its own conversation for a key the build before tied to the other deployment's turn", async () => {
    // The build before derived the unscoped id on B too, found A's running turn there and claimed the key for it.
    const key = `poisoned-${crypto.randomUUID()}`;
    const unscoped = conversationIdForKey(key, 'convengine-turns');
    a.wf.mcp.llm.setScript([extracted('CUST-1001'), plan(SUBMIT, 'CUST-1001'), answer('Not submitted.')]);
    const onA = await a.request('POST', '/api/v1/conversation/message', {
      json: { conversationId: unscoped, message: LOAN_MESSAGE },
      headers: { 'idempotency-key': key },
    });
    expect([onA.status, onA.json().turn.workflowId]).toEqual([202, `turn-${unscoped}-1`]);
    await b.wf.mcp.deps.db.$client.query(
      `INSERT INTO ce_turn_request (conversation_id, idempotency_key, turn_number, workflow_id) VALUES ($1, $2, 1, $3)`,
      [unscoped, key, `turn-${unscoped}-1`]
    );
    const onB = await park(b, key, 'CUST-2002');
    expect([onB.status, onB.json().conversationId]).toEqual([202, conversationIdForKey(key, b.wf.taskQueue)]);
    expect(await findTurnClaim(b.wf.mcp.deps.db, key)).toMatchObject({ workflowId: onB.json().turn.workflowId });
    for (const [h, parked] of [
      [a, onA.json()],
      [b, onB.json()],
    ] as const) {
      expect((await reject(h, parked)).status).toBe(200);
    }
  });

  it("neither re-runs nor decides the other deployment's turn (404 TURN_NOT_FOUND): its gates stay its own", async () => {
    const parked = (await park(a, `gate-${crypto.randomUUID()}`, 'CUST-1001')).json();
    const { workflowId } = parked.turn;
    const decided = await reject(b, parked);
    expect([decided.status, decided.json().error.code]).toEqual([404, 'CONVERSATION_NOT_FOUND']);
    // Nor were the conversation B's too (an id sent to both): its gateway does not send the decision.
    const decision = { decision: 'approve' as const, callIndex: parked.approval.callIndex, decidedBy: 'b-approver' };
    await expect(b.wf.gateway().decideApproval(parked.conversationId, 1, decision)).rejects.toMatchObject({
      statusCode: 404,
      code: 'TURN_NOT_FOUND',
    });
    expect((await a.conversation(parked.conversationId)).pendingApproval).toMatchObject({ toolCode: SUBMIT });
    const handle = a.wf.client.workflow.getHandle(workflowId);
    await handle.terminate('an operator ends the parked turn');
    const { runId } = await handle.describe();
    const retried = await b.request('POST', `/api/v1/admin/turns/${workflowId}/retry`);
    expect([retried.status, retried.json().error.code]).toEqual([404, 'TURN_NOT_FOUND']);
    const after = await handle.describe();
    expect([after.runId, after.status.name, after.taskQueue]).toEqual([runId, 'TERMINATED', a.wf.taskQueue]);
    // Its own deployment still re-runs it, back to its approval gate.
    a.wf.mcp.llm.setScript([extracted('CUST-1001'), plan(SUBMIT, 'CUST-1001'), answer('Not submitted.')]);
    const own = await a.request('POST', `/api/v1/admin/turns/${workflowId}/retry`);
    expect([own.status, own.json().turn.outcome]).toEqual([202, 'AWAITING_APPROVAL']);
    expect((await reject(a, own.json())).status).toBe(200);
  });

  it("lists, counts and shows only its own queue's parked turns, in the API, the console and the CLI", async () => {
    const onA = (await park(a, `views-a-${crypto.randomUUID()}`, 'CUST-1001')).json();
    const onB = (await park(b, `views-b-${crypto.randomUUID()}`, 'CUST-2002')).json();
    const [idA, idB] = [onA.turn.workflowId, onB.turn.workflowId];
    const listed = (await b.request('GET', '/api/v1/admin/turns/awaiting-approval?limit=100')).json();
    const listedIds = listed.turns.map((t: { workflowId: string }) => t.workflowId);
    expect(listedIds).toContain(idB);
    expect(listedIds).not.toContain(idA);
    const counted = await b.wf.client.workflow.count(awaitingApprovalQuery(b.wf.taskQueue));
    expect(counted.count).toBe(listed.turns.length);

    const view = await b.request('GET', `/api/v1/console/turns/${idA}`);
    expect([view.status, view.json().error.code]).toEqual([404, 'TURN_NOT_FOUND']);
    expect((await b.request('GET', `/api/v1/console/turns/${idB}`)).status).toBe(200);
    const held = temporalHeldTools(b.wf.client, { taskQueue: b.wf.taskQueue });
    await expect(held.resolve(idA, { action: 'skip', decidedBy: 'b-sre' })).rejects.toMatchObject({
      statusCode: 404,
      code: 'TURN_NOT_FOUND',
    });

    const server = b.wf.serverArgs();
    const sre = (await runSre(['approvals', ...server])).out.join('\n');
    expect([sre.includes(idB), sre.includes(idA)]).toEqual([true, false]);
    const history = await runHistory([idA, ...server]);
    expect(history).toMatchObject({ code: 1, out: [] });
    expect(history.err.join(' ')).toContain(`it is a turn of task queue ${a.wf.taskQueue}, not ${b.wf.taskQueue}`);
    expect((await runHistory([idB, ...server])).code).toBe(0);

    for (const [h, parked] of [
      [a, onA],
      [b, onB],
    ] as const)
      expect((await reject(h, parked)).status).toBe(200);
  });
});

/** `convengine history` in this process: its exit code and lines. */
async function runHistory(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), stdin: process.stdin };
  const code = await historyCommand.run(args, io, loadEnv());
  return { code, out, err };
}
