/**
 * A turn that fails commits nothing, so the next message takes its turn number as another run of the same turn id
 * (docs/architecture.md, "Runs of a turn"). Every view must still say which run a row belongs to, and that the failed
 * message was a message of its own that a later one superseded, not the same turn run again.
 */
import type { ConfigRows } from '../../core/config/types';
import { ApiHarness, type ApiJson } from '../support/api-harness';
import { answer, callTool, orderConfig } from '../support/order-config';

const TOKEN = 'superseded-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const FAILED = 'Check order ORD-7017 status, the one that fails.';
const NEXT = 'Check order ORD-7017 status again.';

function withoutReplyFor(rows: Partial<ConfigRows>, state: string): Partial<ConfigRows> {
  return { ...rows, responses: (rows.responses ?? []).filter((r) => r.stateCode !== state) };
}

const script = () => [callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')];

describe('a failed message whose turn number the next message took (a superseded run)', () => {
  let h: ApiHarness;
  let conversationId: string;
  let workflowId: string;
  let failedRun: string;
  let finalRun: string;

  beforeAll(async () => {
    h = await ApiHarness.start({ apiToken: TOKEN });
    // No reply for COMPLETED: response resolution fails the turn (RESPONSE_MAPPING_NOT_FOUND), nothing committed.
    await h.wf.mcp.configure(withoutReplyFor(orderConfig(), 'COMPLETED'));
    h.wf.mcp.llm.setScript(script());
    const failed = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: FAILED },
      headers: auth,
    });
    expect([failed.status, failed.json().error.details.failureType]).toEqual([500, 'RESPONSE_MAPPING_NOT_FOUND']);
    ({ workflowId, runId: failedRun } = failed.json().error.details);
    conversationId = workflowId.slice('turn-'.length, -'-1'.length);

    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript(script());
    const next = await h.request('POST', '/api/v1/conversation/message', {
      json: { conversationId, message: NEXT },
      headers: auth,
    });
    expect(next.status).toBe(200);
    expect(next.json().turn).toMatchObject({ workflowId, number: 1 });
    finalRun = next.json().turn.runId;
    expect(finalRun).not.toBe(failedRun);
  });
  afterAll(async () => h?.stop());

  const get = async (path: string): Promise<ApiJson> => {
    const res = await h.request('GET', path, { headers: auth });
    expect([path, res.status]).toEqual([path, 200]);
    return res.json();
  };

  it('names the run of every audit row, and the failed message is a USER_INPUT of the failed run', async () => {
    const rows: { runId: string | null; stage: string; payload: { text?: string } }[] = await get(
      `/api/v1/conversation/audit/${conversationId}`
    );
    expect(new Set(rows.map((r) => r.runId))).toEqual(new Set([failedRun, finalRun]));
    const inputs = rows.filter((r) => r.stage === 'USER_INPUT').map((r) => [r.runId, r.payload.text]);
    expect(inputs).toEqual([
      [failedRun, FAILED],
      [finalRun, NEXT],
    ]);
  });

  it('keeps each run in frames of its own in the trace, each frame and stage naming its run', async () => {
    const trace = await get(`/api/v1/conversation/audit/${conversationId}/trace`);
    const loads = trace.steps.filter((s: { step: string }) => s.step === 'LoadOrCreateConversation');
    expect(loads.map((s: { runId: string }) => s.runId)).toEqual([failedRun, finalRun]);
    const failedSteps = trace.steps.filter((s: { runId: string }) => s.runId === failedRun);
    expect(failedSteps.some((s: { status: string }) => s.status === 'ERROR')).toBe(true);
    const finalSteps = trace.steps.filter((s: { runId: string }) => s.runId === finalRun);
    expect(finalSteps.every((s: { status: string }) => s.status === 'OK')).toBe(true);
    expect(trace.stages.every((s: { runId: string | null }) => s.runId === failedRun || s.runId === finalRun)).toBe(
      true
    );
  });

  it('lists the failed message in the turn list as a superseded earlier run of turn 1', async () => {
    const { turns } = await get(`/api/v1/console/conversations/${conversationId}/turns`);
    expect(turns).toEqual([
      expect.objectContaining({
        workflowId,
        runId: finalRun,
        status: 'COMPLETED',
        userInput: NEXT,
        earlierRuns: [
          expect.objectContaining({ runId: failedRun, status: 'FAILED', userInput: FAILED, superseded: true }),
        ],
      }),
    ]);
  });

  it("shows the turn's page with the final run's message and the failed run as a superseded message", async () => {
    const turn = await get(`/api/v1/console/turns/${workflowId}`);
    expect(turn.userInput).toBe(NEXT);
    expect(turn.earlierRuns).toEqual([{ runId: failedRun, userInput: FAILED, superseded: true }]);
    const runs = new Set(turn.audits.map((a: { runId: string }) => a.runId));
    expect(runs).toEqual(new Set([failedRun, finalRun]));
  });

  it('says an operator retry of a failed turn is the same message run again, not a superseded one', async () => {
    await h.wf.mcp.configure(withoutReplyFor(orderConfig(), 'COMPLETED'));
    h.wf.mcp.llm.setScript(script());
    const failed = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: FAILED },
      headers: auth,
    });
    expect(failed.status).toBe(500);
    const retriedId = failed.json().error.details.workflowId as string;
    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript(script());
    const retried = await h.request('POST', `/api/v1/admin/turns/${retriedId}/retry`, { headers: auth });
    expect(retried.status).toBe(200);
    const turn = await get(`/api/v1/console/turns/${retriedId}`);
    expect(turn.earlierRuns).toEqual([
      { runId: failed.json().error.details.runId, userInput: FAILED, superseded: false },
    ]);
  });
});
