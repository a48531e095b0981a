import { createPipelineActivities, PIPELINE_STEP_FUNCTIONS } from '../../../activities/pipeline';
import { ApiHarness, type ApiJson } from '../../support/api-harness';
import { eventually } from '../../devserver/harness';
import { answer, callTool, orderConfig } from '../../support/order-config';

const ORDER_MESSAGE = 'Check order ORD-7017 status.';

/**
 * A turn an operator ended in Temporal (`temporal workflow cancel` / `terminate`) reads the same in the POST that
 * waited on it, in a replay of that POST's Idempotency-Key, and in GET /conversation/{id}: ended on purpose (409,
 * TURN_CANCELLED / TURN_TERMINATED, not retryable), not a failure a new request should mend; and a turn ended while
 * parked on an approval no longer shows that approval as pending.
 */
describe('a turn ended by an operator in Temporal', () => {
  let h: ApiHarness;
  /** Lets the slow tool call of the running turn return. */
  let releaseTool: () => void = () => undefined;
  /** Run by PipelineEnd, the step after the commit, before it does its own work: by default nothing. */
  let afterCommit: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    h = await ApiHarness.start({
      activities: (base, deps) => ({
        ...base,
        ...createPipelineActivities(deps, {
          PipelineEnd: async (ctx) => {
            await afterCommit?.();
            return PIPELINE_STEP_FUNCTIONS.PipelineEnd(ctx);
          },
        }),
      }),
    });
  });
  afterEach(() => {
    afterCommit = null;
    releaseTool();
  });
  afterAll(async () => h?.stop());

  const endTurn = (workflowId: string, how: 'cancel' | 'terminate') => {
    const handle = h.wf.client.workflow.getHandle(workflowId);
    return how === 'cancel' ? handle.cancel() : handle.terminate('operator sweep');
  };

  it.each([
    ['cancel', 'TURN_CANCELLED'],
    ['terminate', 'TURN_TERMINATED'],
  ] as const)(
    '%s during a slow tool call: 409 %s, not retryable, in the POST, its replay and GET',
    async (how, type) => {
      await h.wf.mcp.configure(orderConfig());
      let toolStarted = false;
      h.wf.mcp.setHandlers({
        'mock.order.status': () => {
          toolStarted = true;
          return new Promise((resolve) => {
            releaseTool = () => resolve({ status: 'SUBMITTED', orderId: 'ORD-7017' });
          });
        },
      });
      h.wf.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Submitted.')]);
      const id = crypto.randomUUID();
      const key = `ended-${crypto.randomUUID()}`;
      const waiting = h.sendMessage(ORDER_MESSAGE, id, key);
      await eventually(async () => expect(toolStarted).toBe(true), 30_000);
      await endTurn(`turn-${id}-1`, how);

      const expected = { code: 'TURN_FAILED', details: { failureType: type, retryable: false } };
      for (const answered of [await waiting, await h.sendMessage(ORDER_MESSAGE, id, key)]) {
        expect({ status: answered.status, error: answered.json().error }).toMatchObject({
          status: 409,
          error: expected,
        });
        expect(answered.json().error.message).not.toContain('new Idempotency-Key');
      }
      expect((await h.conversation(id)).lastTurn).toEqual({
        turnNumber: 1,
        status: 'FAILED',
        failureType: type,
        retryable: false,
      });
    }
  );

  it.each(['cancel', 'terminate'] as const)(
    '%s of a turn parked on an approval: pendingApproval is null, as lastTurn says the turn ended',
    async (how) => {
      const id = crypto.randomUUID();
      const parked = await h.parkOnApproval(id);
      expect(parked.status).toBe(202);
      expect((await h.conversation(id)).pendingApproval).toMatchObject({
        turnNumber: 1,
        toolCode: 'loan.application.submit',
      });

      await endTurn(`turn-${id}-1`, how);
      await h.wf.client.workflow
        .getHandle(`turn-${id}-1`)
        .result()
        .catch(() => undefined);
      const shown = await h.conversation(id);
      expect(shown.lastTurn).toMatchObject({ turnNumber: 1, status: 'FAILED', retryable: false });
      expect(shown.pendingApproval).toBeNull();
    }
  );

  it.each(['cancel', 'terminate'] as const)(
    '%s after the turn committed: 200 with the committed reply, as a completed turn answers, in the POST and its replay',
    async (how) => {
      await h.wf.mcp.configure(orderConfig());
      h.wf.mcp.setHandlers({ 'mock.order.status': async () => ({ status: 'SUBMITTED', orderId: 'ORD-7017' }) });
      const script = [callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Submitted.')];
      h.wf.mcp.llm.setScript(script);
      const normalId = crypto.randomUUID();
      const normal = await h.sendMessage(ORDER_MESSAGE, normalId, `normal-${normalId}`);
      expect(normal.status).toBe(200);

      h.wf.mcp.llm.setScript(script);
      let committed = false;
      afterCommit = () => {
        committed = true;
        return new Promise((resolve) => (releaseTool = resolve));
      };
      const id = crypto.randomUUID();
      const key = `ended-after-commit-${id}`;
      const waiting = h.sendMessage(ORDER_MESSAGE, id, key);
      await eventually(async () => expect(committed).toBe(true), 30_000);
      await endTurn(`turn-${id}-1`, how);

      // The normal turn's body, in this conversation's words.
      const expected = (runId: string): ApiJson => ({
        ...normal.json(),
        conversationId: id,
        turn: { ...normal.json().turn, workflowId: `turn-${id}-1`, runId },
      });
      for (const answered of [await waiting, await h.sendMessage(ORDER_MESSAGE, id, key)]) {
        expect(answered.status).toBe(200);
        expect(answered.json()).toEqual(expected(answered.json().turn.runId));
      }
      const shown = await h.conversation(id);
      expect(shown).toMatchObject({ turnCount: 1, lastTurn: { turnNumber: 1, status: 'COMPLETED' } });
      expect((await h.wf.client.workflow.getHandle(`turn-${id}-1`).describe()).status.name).toBe(
        how === 'cancel' ? 'CANCELLED' : 'TERMINATED'
      );
    }
  );
});
