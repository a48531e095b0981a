import { ApiError } from '../../api/errors';
import type { TurnReply } from '../../api/ports';
import { committedTurnCount } from '../../db/repositories/conversation';
import { answer, callTool, orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

const MESSAGE = 'Check order ORD-7017 status.';

function slowPlan() {
  return [{ ...callTool('mock.order.status', { orderId: 'ORD-7017' }), delayMs: 1500 }, answer('Order submitted.')];
}

function completed(reply: TurnReply) {
  if (reply.kind !== 'COMPLETED') throw new Error(`expected a completed turn, got ${reply.kind}`);
  return reply;
}

describe('turn identity (D13, issue #6 item 9)', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
    await h.mcp.configure(orderConfig());
  });
  afterAll(async () => h?.stop());
  beforeEach(() => h.mcp.llm.setScript([]));

  it('uses a readable, deterministic workflow id per turn', async () => {
    h.mcp.llm.setScript([answer('first'), answer('second')]);
    const conversationId = crypto.randomUUID();
    const first = completed(await h.send({ conversationId, message: MESSAGE }));
    const second = completed(await h.send({ conversationId, message: MESSAGE }));
    expect(first.ref.workflowId).toBe(`turn-${conversationId}-1`);
    expect(second.ref.workflowId).toBe(`turn-${conversationId}-2`);
  });

  it('refuses a second concurrent turn on the same conversation with TURN_IN_PROGRESS', async () => {
    h.mcp.llm.setScript(slowPlan());
    const conversationId = crypto.randomUUID();
    const running = h.send({ conversationId, message: MESSAGE });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const refused = await h.send({ conversationId, message: 'Check order ORD-7018 status.' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ statusCode: 409, code: 'TURN_IN_PROGRESS' });
    expect(completed(await running).result.payload.value).toBe('Done: Order submitted.');
    expect(await committedTurnCount(h.mcp.deps.db, conversationId)).toBe(1);
  });

  it('attaches a retried request with the same idempotency key to the running turn', async () => {
    h.mcp.llm.setScript(slowPlan());
    const conversationId = crypto.randomUUID();
    const request = { conversationId, message: MESSAGE, idempotencyKey: 'req-42' };
    const [a, b] = await Promise.all([h.send(request), h.send(request)]);
    expect(completed(a).ref).toEqual(completed(b).ref);
    expect(completed(b).result).toEqual(completed(a).result);
    expect(await committedTurnCount(h.mcp.deps.db, conversationId)).toBe(1);
  });

  it('answers a replayed key after completion with the same result, without running the turn again', async () => {
    h.mcp.llm.setScript([answer('Order submitted.')]);
    const conversationId = crypto.randomUUID();
    const request = { conversationId, message: MESSAGE, idempotencyKey: 'req-43' };
    const first = completed(await h.send(request));
    const replay = completed(await h.send(request));
    expect(replay.ref).toEqual(first.ref);
    expect(replay.result).toEqual(first.result);
    expect(await committedTurnCount(h.mcp.deps.db, conversationId)).toBe(1);
    expect(h.mcp.llm.unconsumed()).toEqual([]);
  });

  it('a keyed request whose turn failed, and whose number another request took since, runs as a turn of its own', async () => {
    const conversationId = crypto.randomUUID();
    const keyed = { conversationId, message: MESSAGE, idempotencyKey: 'req-44' };
    h.mcp.llm.setScript([{ kind: 'PLAN', error: { status: 400, message: 'refused' } }]);
    expect((await h.send(keyed)).kind).toBe('FAILED');
    // A failed turn's id may be run again: another request takes turn 1.
    h.mcp.llm.setScript([answer('the other request')]);
    const other = completed(await h.send({ conversationId, message: 'Check order ORD-7018 status.' }));
    expect(other.ref.turnNumber).toBe(1);

    h.mcp.llm.setScript([answer('the keyed request')]);
    const retried = completed(await h.send(keyed));
    expect(retried.ref.turnNumber).toBe(2);
    expect(retried.result.payload.value).toBe('Done: the keyed request');
    // From now on the key names turn 2: its reply again, no third turn.
    const again = completed(await h.send(keyed));
    expect(again.ref).toEqual(retried.ref);
    expect(await committedTurnCount(h.mcp.deps.db, conversationId)).toBe(2);
  });
});
