/**
 * Operators read what a parked turn waits on from its memo (workflows/park.ts, PARKED_MEMO_PATCH), never by querying
 * the turn: a query a workflow task carries is answered before a quick local activity that task schedules resolves,
 * which can move what follows the activity (a `patched()` call) into another task, a history that no longer replays
 * (test/devserver/query-during-local-activity.test.ts). The approvers' queue, the held list and the console's turn page
 * show the call with no query; a turn parked by a worker before the memo is still shown, by its worker's answer.
 */
import { ApiHarness, type ApiJson } from '../support/api-harness';
import { extracted, LOAN, LOAN_MESSAGE, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { workflowBundleBeforeParkedMemo } from '../support/workflow-bundle';
import { checkTurnPatches } from '../../cli/doctor/turn-patches';
import { localTemporal } from '../../config/temporal-connection';
import { turnWorkerIdentity } from '../../observability/turn-pollers';
import { TURN_WORKFLOW_TYPE } from '../../workflows/turn-type';
import { PARKED_MEMO_PATCH, TURN_PATCHES } from '../../workflows/turn-versions';

const SUBMIT = 'loan.application.submit';
const HOLD = { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 };

describe('what a parked turn waits on, read without a query', () => {
  let h: ApiHarness;
  let queries: jest.SpiedFunction<ApiHarness['wf']['client']['workflowService']['queryWorkflow']>;
  const auth = { authorization: 'Bearer memo-token' };
  const get = async (path: string): Promise<ApiJson> => {
    const res = await h.request('GET', path, { headers: auth });
    expect([path, res.status]).toEqual([path, 200]);
    return res.json();
  };
  const listed = async (path: string, workflowId: string) =>
    ((await get(path)).turns as { workflowId: string }[]).find((t) => t.workflowId === workflowId);
  /** A turn parked on the submit's approval: its 202. */
  const parkOnApproval = async (customerId: string): Promise<ApiJson> => {
    await h.wf.mcp.configure(loanConfig({ submitNeedsApproval: true }));
    h.wf.mcp.llm.setScript([extracted(customerId), plan(SUBMIT, customerId), answer('Submitted.')]);
    const res = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: LOAN_MESSAGE },
      headers: auth,
    });
    expect([res.status, res.json().turn.outcome]).toEqual([202, 'AWAITING_APPROVAL']);
    return res.json();
  };

  beforeAll(async () => {
    h = await ApiHarness.start({ apiToken: 'memo-token' });
  });
  afterAll(async () => h?.stop());
  beforeEach(() => {
    queries = jest.spyOn(h.wf.client.workflowService, 'queryWorkflow');
  });
  afterEach(async () => {
    queries.mockRestore();
    await h.wf.startWorker();
  });

  it('the approvers’ queue and the console show the pending call with no query, with or without a worker', async () => {
    const parked = await parkOnApproval('CUST-1001');
    const { workflowId } = parked.turn;
    const approval = { toolCode: SUBMIT, callIndex: parked.approval.callIndex, expiresAt: parked.approval.expiresAt };

    for (const worker of ['running', 'stopped']) {
      if (worker === 'stopped') await h.wf.stopWorker();
      const queued = await listed('/api/v1/admin/turns/awaiting-approval', workflowId);
      expect({ worker, queued }).toMatchObject({ worker, queued: { intent: LOAN, approval } });
      expect(queued).not.toHaveProperty('unavailable');
      const page = await get(`/api/v1/console/turns/${workflowId}`);
      expect({ worker, page }).toMatchObject({
        worker,
        page: { pendingApproval: { ...approval, args: { customerId: 'CUST-1001' } }, waitingUnavailable: null },
      });
      expect({ worker, queries: queries.mock.calls.length }).toEqual({ worker, queries: 0 });
    }
  });

  it('the held list and the console show the held call with no query, with or without a worker', async () => {
    await h.wf.mcp.configure(loanConfig({ submit: HOLD }));
    h.wf.mcp.toolServer.faults.set('/loan/applications', { failTimes: 1_000, status: 503 });
    h.wf.mcp.llm.setScript([extracted('CUST-1002'), plan(SUBMIT, 'CUST-1002'), answer('Done.')]);
    const res = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: LOAN_MESSAGE },
      headers: auth,
    });
    expect(res.json().turn.outcome).toBe('HELD');
    const { workflowId } = res.json().turn;
    const held = { toolCode: SUBMIT, attempts: 2, failureType: 'TOOL_HTTP_ERROR', intent: LOAN };

    for (const worker of ['running', 'stopped']) {
      if (worker === 'stopped') await h.wf.stopWorker();
      const entry = await listed('/api/v1/admin/turns/held', workflowId);
      expect({ worker, entry }).toMatchObject({ worker, entry: { held } });
      expect(entry).not.toHaveProperty('unavailable');
      const page = await get(`/api/v1/console/turns/${workflowId}`);
      expect({ worker, page }).toMatchObject({ worker, page: { heldTool: held, waitingUnavailable: null } });
      expect({ worker, queries: queries.mock.calls.length }).toEqual({ worker, queries: 0 });
    }
    h.wf.mcp.toolServer.faults.clear('/loan/applications');
  });

  it('a turn parked by a worker before the memo is shown by its worker’s answer; the others still need no query', async () => {
    await h.wf.stopWorker();
    await h.wf.startWorker(await workflowBundleBeforeParkedMemo());
    const before = await parkOnApproval('CUST-1003');
    await h.wf.stopWorker();
    await h.wf.startWorker();
    const after = await parkOnApproval('CUST-1004');
    queries.mockClear();

    // The new worker answers for the turn the old one parked: it replays it as it ran, without the memo.
    const queued = await listed('/api/v1/admin/turns/awaiting-approval', before.turn.workflowId);
    expect(queued).toMatchObject({ approval: { toolCode: SUBMIT, callIndex: before.approval.callIndex } });
    const page = await get(`/api/v1/console/turns/${before.turn.workflowId}`);
    expect(page).toMatchObject({ pendingApproval: { toolCode: SUBMIT, args: { customerId: 'CUST-1003' } } });
    const asked = queries.mock.calls.length;
    expect(asked).toBeGreaterThan(0);
    const describedBefore = await h.wf.client.workflow.getHandle(before.turn.workflowId).describe();
    expect(describedBefore.memo).not.toHaveProperty('parkedCall');

    // The turn parked since is listed and shown from its memo: no query more.
    const listedAfter = await listed('/api/v1/admin/turns/awaiting-approval', after.turn.workflowId);
    expect(listedAfter).toMatchObject({ approval: { callIndex: after.approval.callIndex } });
    await get(`/api/v1/console/turns/${after.turn.workflowId}`);
    const queried = queries.mock.calls.map(([request]) => request.execution?.workflowId);
    expect(queried.filter((id) => id === after.turn.workflowId)).toEqual([]);

    // Without a worker the old turn's call cannot be read: listed, saying why.
    await h.wf.stopWorker();
    const unread = await listed('/api/v1/admin/turns/awaiting-approval', before.turn.workflowId);
    expect(unread).toMatchObject({ approval: null, unavailable: expect.stringMatching(/no worker/) });
  });

  it('a rollback: a decision on a turn parked with the memo is refused while only a worker before it polls', async () => {
    const parked = await parkOnApproval('CUST-1005');
    const url = `/api/v1/conversation/${parked.conversationId}/turns/${parked.turn.number}/approval`;
    const approve = { json: { decision: 'approve', callIndex: parked.approval.callIndex }, headers: auth };
    await h.wf.stopWorker();
    // The build before the memo knew every patch up to it: it says so in its identity.
    const known = TURN_PATCHES.indexOf(PARKED_MEMO_PATCH);
    await h.wf.startWorker(
      await workflowBundleBeforeParkedMemo(),
      `${process.pid}@rolled-back runs=${TURN_WORKFLOW_TYPE} patches=${known}`
    );

    // Temporal lists the stopped worker among the pollers for minutes: as if its last poll were older than the
    // API counts (WORKER_SEEN_WITHIN_MS), the listing leaves it out.
    const service = h.wf.client.workflowService;
    const describeTaskQueue = service.describeTaskQueue.bind(service);
    const listing = jest.spyOn(service, 'describeTaskQueue').mockImplementation(async (request) => {
      const described = await describeTaskQueue(request);
      const pollers = described.pollers?.filter((poller) => poller.identity !== turnWorkerIdentity());
      return Object.assign(described, { pollers });
    });
    const refused = await h.request('POST', url, approve);
    expect([refused.status, refused.json().error]).toEqual([
      503,
      expect.objectContaining({
        code: 'WORKER_LACKS_PATCH',
        details: expect.objectContaining({ decisionSent: false, patches: [PARKED_MEMO_PATCH] }),
      }),
    ]);

    listing.mockRestore();
    await h.wf.stopWorker();
    await h.wf.startWorker();
    const decided = await h.request('POST', url, approve);
    expect(decided.status).toBe(200);
  });

  it('convengine doctor lists the patches this build knows and counts the running turns that recorded each', async () => {
    await parkOnApproval('CUST-1006');
    const { address, namespace } = h.wf.temporal;
    const doctor = () => checkTurnPatches(localTemporal(address), namespace, h.wf.taskQueue);
    let finding = await doctor();
    // Visibility may list a turn a moment after it parked.
    for (let tries = 0; tries < 20 && !finding.message.includes(`${PARKED_MEMO_PATCH} `); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      finding = await doctor();
    }
    expect(finding).toMatchObject({ check: 'turn-patches', level: 'ok' });
    expect(finding.message).toContain(`know ${TURN_PATCHES.length} turn workflow patches (identity patches=`);
    expect(finding.message).toContain(`oldest first: ${TURN_PATCHES.join(', ')};`);
    expect(finding.message).toMatch(new RegExp(`that recorded them: .*\\b${PARKED_MEMO_PATCH} [1-9]\\d*\\b`));
  });
});
