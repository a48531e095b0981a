import type { TurnReply } from '../../api/ports';
import { committedTurnCount } from '../../db/repositories/conversation';
import { pruneConversations } from '../../db/repositories/retention';
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
    const reply = await running;
    expect(reply.kind).toBe('COMPLETED');
    expect(await committedTurnCount(h.mcp.deps.db, conversationId)).toBe(1);
  });
});
