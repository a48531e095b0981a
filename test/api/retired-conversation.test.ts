import { ApiHarness } from '../support/api-harness';
import { answer, callTool, orderConfig } from '../support/order-config';
import { createClaimStore } from '../../db/claims/store';
import { pruneConversations } from '../../db/repositories/retention';

const ORDER_MESSAGE = 'Check order ORD-7017 status for Jane Roe.';

/** A pruned conversation stays gone: neither the console's turn view nor a retry brings its text back from history. */
describe('a pruned conversation over the real turn workflow', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
  });
  afterAll(async () => h?.stop());

  const send = (json: unknown) => h.request('POST', '/api/v1/conversation/message', { json });

  /** Ages every row of the conversation three days. */
  async function age(conversationId: string): Promise<void> {
    const db = h.wf.mcp.deps.db;
    for (const table of ['ce_conversation', 'ce_audit', 'ce_turn_request']) {
      const column = table === 'ce_conversation' ? 'updated_at' : 'created_at';
      await db.$client.query(`UPDATE ${table} SET ${column} = now() - interval '3 days' WHERE conversation_id = $1`, [
        conversationId,
      ]);
    }
  }

  const pruneIdle = () => pruneConversations(h.wf.mcp.deps.db, new Date(Date.now() - 2 * 24 * 3600 * 1000));

  /** Ages every row of the conversation three days and prunes what is idle for two. */
  async function prune(conversationId: string): Promise<void> {
    await age(conversationId);
    expect((await pruneIdle()).conversations).toBe(1);
  }

  it("answers 410 for the console's view of a pruned conversation's turn instead of its text", async () => {
    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript([answer('Order ORD-7017 is on its way.')]);
    const done = await send({ message: ORDER_MESSAGE });
    expect(done.status).toBe(200);
    const { conversationId } = done.json();
    const view = `/api/v1/console/turns/turn-${conversationId}-1`;
    expect((await h.request('GET', view)).body).toContain('Jane Roe');
    await prune(conversationId);
    const after = await h.request('GET', view);
    expect([after.status, after.json().error.code]).toEqual([410, 'CONVERSATION_RETIRED']);
    expect(after.body).not.toContain('Jane Roe');
  });

  it("refuses to retry a pruned conversation's failed first turn, which would recreate it from history", async () => {
    // No reply for COMPLETED: response resolution fails the turn, which commits nothing.
    const rows = orderConfig();
    await h.wf.mcp.configure({ ...rows, responses: (rows.responses ?? []).filter((r) => r.stateCode !== 'COMPLETED') });
    h.wf.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')]);
    const failed = await send({ message: ORDER_MESSAGE });
    expect(failed.status).toBe(500);
    const workflowId = failed.json().error.details.workflowId as string;
    const conversationId = workflowId.slice('turn-'.length, -'-1'.length);
    await prune(conversationId);

    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')]);
    const retried = await h.request('POST', `/api/v1/admin/turns/${workflowId}/retry`);
    expect([retried.status, retried.json().error.code]).toEqual([410, 'CONVERSATION_RETIRED']);
    const read = await h.request('GET', `/api/v1/conversation/${conversationId}`);
    expect([read.status, read.json().error.code]).toEqual([410, 'CONVERSATION_RETIRED']);
    const again = await send({ conversationId, message: ORDER_MESSAGE });
    expect([again.status, again.json().error.code]).toEqual([410, 'CONVERSATION_RETIRED']);
    const rowsLeft = await h.wf.mcp.deps.db.$client.query('SELECT 1 FROM ce_audit WHERE conversation_id = $1', [
      conversationId,
    ]);
    expect(rowsLeft.rowCount).toBe(0);
  });

  it('ends a turn that starts while a prune deletes its conversation: 410 CONVERSATION_RETIRED, not started afresh', async () => {
    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript([answer('Order ORD-7017 is on its way.'), answer('Still on its way.')]);
    const { conversationId } = (await send({ message: ORDER_MESSAGE })).json();
    await age(conversationId);
    // The prune holds the conversation's row from its batch's first statement; this session keeps it from going on
    // (a claim body of the conversation, which the batch locks next) until the second turn waits for that row.
    const db = h.wf.mcp.deps.db;
    const hash = 'f'.repeat(64);
    await createClaimStore(db).putMany([{ hash, body: new TextEncoder().encode('Jane Roe') }], conversationId);
    const holder = await db.$client.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM ce_payload_claim WHERE claim_hash = $1 FOR UPDATE', [hash]);
    const pruning = pruneIdle();
    await untilWaiting(1);
    const sending = send({ conversationId, message: ORDER_MESSAGE });
    await untilWaiting(2);
    await holder.query('COMMIT');
    holder.release();
    expect((await pruning).conversations).toBe(1);

    const sent = await sending;
    expect([sent.status, sent.json().error.code]).toEqual([410, 'CONVERSATION_RETIRED']);
    for (const table of ['ce_conversation', 'ce_audit', 'ce_conversation_history']) {
      const left = await db.$client.query(`SELECT 1 FROM ${table} WHERE conversation_id = $1`, [conversationId]);
      expect([table, left.rowCount]).toEqual([table, 0]);
    }
  });

  /** Until `sessions` sessions of the database wait for a lock. */
  async function untilWaiting(sessions: number): Promise<void> {
    for (let i = 0; i < 400; i++) {
      const { rowCount } = await h.wf.mcp.deps.db.$client.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
      );
      if ((rowCount ?? 0) >= sessions) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`fewer than ${sessions} sessions wait for a lock`);
  }
});
