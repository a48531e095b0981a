import type { TurnReply } from '../../api/ports';
import { committedTurnCount } from '../../db/repositories/conversation';
import { pruneConversations } from '../../db/repositories/retention';
import { conversationQueries } from '../../api/db-queries';
import { temporalTurnEnds } from '../../api/turns/turn-ended';
import { turnIdFor } from '../../core/turn/contracts';
import { answer, callTool, orderConfig } from '../support/order-config';
import { WorkflowHarness } from '../support/workflow-harness';

const DAY = 24 * 60 * 60 * 1000;

/**
 * `convengine conversations prune` deleted a conversation whose turn was still running (its rows were
 * older than the cutoff: a held tool call or an approval can leave a turn quiet for a day or more); the turn
 * then failed on a foreign key and could not be retried (STALE_TURN). Here a real turn is in flight, waiting on a
 * slow tool call, with every row it has written made three days old.
 */
describe('conversation prune while a turn is in flight (db/repositories/retention.ts, real worker)', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start();
    await h.mcp.configure(orderConfig());
  });
  afterAll(async () => h?.stop());

  async function rowsWritten(conversationId: string): Promise<number> {
    const { rows } = await h.mcp.db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM ce_audit WHERE conversation_id = $1',
      [conversationId]
    );
    return rows[0]?.n ?? 0;
  }

  it('skips the conversation and counts it; the turn then completes', async () => {
    h.mcp.llm.setScript([
      { ...callTool('mock.order.status', { orderId: 'ORD-7017' }), delayMs: 3000 },
      answer('Order submitted.'),
    ]);
    const conversationId = crypto.randomUUID();
    const running: Promise<TurnReply> = h.send({ conversationId, message: 'Check order ORD-7017 status.' });
    while ((await rowsWritten(conversationId)) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const threeDaysAgo = new Date(Date.now() - 3 * DAY);
    await h.mcp.db.pool.query('UPDATE ce_audit SET created_at = $2 WHERE conversation_id = $1', [
      conversationId,
      threeDaysAgo,
    ]);
    await h.mcp.db.pool.query(
      'UPDATE ce_conversation SET created_at = $2, updated_at = $2 WHERE conversation_id = $1',
      [conversationId, threeDaysAgo]
    );

    const counts = await pruneConversations(h.mcp.deps.db, new Date(Date.now() - 2 * DAY));
    expect(counts).toMatchObject({ conversations: 0, skippedInFlight: 1 });
    // Temporal, asked, says it runs: kept too.
    const turnEnds = temporalTurnEnds(h.client.workflow, h.taskQueue);
    const asked = await pruneConversations(h.mcp.deps.db, new Date(Date.now() - 2 * DAY), { turnEnds });
    expect(asked).toMatchObject({ conversations: 0, skippedInFlight: 1 });
    // Asked by a deployment on another task queue of the namespace, the running turn is not its own: its turn ended.
    const elsewhere = temporalTurnEnds(h.client.workflow, `${h.taskQueue}-other`);
    const cutoff = new Date(Date.now() - 2 * DAY);
    const other = await pruneConversations(h.mcp.deps.db, cutoff, { turnEnds: elsewhere, dryRun: true });
    expect(other).toMatchObject({ conversations: 1, skippedInFlight: 0 });
    const reply = await running;
    expect(reply.kind).toBe('COMPLETED');
    expect(await committedTurnCount(h.mcp.deps.db, conversationId)).toBe(1);
  });

  it('a turn that ended without a failure row (terminated) is FAILED in lastTurn and no longer keeps its conversation', async () => {
    h.mcp.llm.setScript([answer('Hello.')]);
    const conversationId = crypto.randomUUID();
    expect((await h.send({ conversationId, message: 'Hi.' })).kind).toBe('COMPLETED');
    h.mcp.llm.setScript([{ ...callTool('mock.order.status', { orderId: 'ORD-7017' }), delayMs: 60_000 }]);
    const running = h.send({ conversationId, message: 'Check order ORD-7017 status.' }).catch(() => null);
    while ((await rowsWritten(conversationId)) <= 2 || !(await turnStarted(conversationId))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // What an operator's `temporal workflow terminate` does (and an older build's failed turn left): no failure row.
    await h.client.workflow.getHandle(turnIdFor(conversationId, 2)).terminate('operator');
    await running;
    const turnEnds = temporalTurnEnds(h.client.workflow, h.taskQueue);
    expect((await conversationQueries(h.mcp.deps.db).conversation(conversationId))?.lastTurn).toEqual({
      turnNumber: 1,
      status: 'COMPLETED',
    });
    expect((await conversationQueries(h.mcp.deps.db, turnEnds).conversation(conversationId))?.lastTurn).toEqual({
      turnNumber: 2,
      status: 'FAILED',
      failureType: 'TURN_TERMINATED',
      retryable: false,
    });

    const threeDaysAgo = new Date(Date.now() - 3 * DAY);
    for (const table of ['ce_audit', 'ce_turn_request', 'ce_conversation_history']) {
      await h.mcp.db.pool.query(`UPDATE ${table} SET created_at = $2 WHERE conversation_id = $1`, [
        conversationId,
        threeDaysAgo,
      ]);
    }
    await h.mcp.db.pool.query('UPDATE ce_conversation SET updated_at = $2 WHERE conversation_id = $1', [
      conversationId,
      threeDaysAgo,
    ]);
    const cutoff = new Date(Date.now() - 2 * DAY);
    expect(await pruneConversations(h.mcp.deps.db, cutoff, { dryRun: true })).toMatchObject({
      conversations: 0,
      skippedInFlight: 1,
    });
    expect(await pruneConversations(h.mcp.deps.db, cutoff, { turnEnds })).toMatchObject({
      conversations: 1,
      skippedInFlight: 0,
    });
  });

  async function turnStarted(conversationId: string): Promise<boolean> {
    const { rows } = await h.mcp.db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM ce_audit WHERE conversation_id = $1 AND turn_number = 2',
      [conversationId]
    );
    return (rows[0]?.n ?? 0) > 0;
  }
});
