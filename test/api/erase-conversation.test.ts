import { createClaimStore } from '../../db/claims/store';
import { eraseConversationRows } from '../../db/repositories/erasure';
import { retiredDigest } from '../../db/repositories/retired';
import { ApiHarness } from '../support/api-harness';
import { answer, orderConfig } from '../support/order-config';

const ORDER_MESSAGE = 'Check order ORD-7017 status for Jane Roe.';
const TABLES = ['ce_conversation', 'ce_audit', 'ce_conversation_history', 'ce_llm_call_log', 'ce_turn_request'];

/** DELETE /api/v1/admin/conversations/{id} over the real turn workflow and Temporal server. */
describe('erasing one conversation', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
  });
  afterAll(async () => h?.stop());

  const send = (json: unknown) => h.request('POST', '/api/v1/conversation/message', { json });
  const query = (text: string, values: unknown[]) => h.wf.mcp.deps.db.$client.query(text, values);

  it('deletes every row, its claim bodies and its turn executions, retires the id and records the erase', async () => {
    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript([answer('On its way.'), answer('Still on its way.')]);
    const { conversationId } = (await send({ message: ORDER_MESSAGE })).json();
    expect((await send({ conversationId, message: ORDER_MESSAGE })).status).toBe(200);
    const body = new TextEncoder().encode('Jane Roe '.repeat(500));
    await createClaimStore(h.wf.mcp.deps.db).putMany([{ hash: 'e'.repeat(64), body }], conversationId);

    const erased = await h.request('DELETE', `/api/v1/admin/conversations/${conversationId}`);
    expect(erased.status).toBe(200);
    expect(erased.json()).toMatchObject({
      conversationId,
      rows: { conversations: 1, historyRows: 2, claims: 1, turns: 2 },
      executionsDeleted: 2,
      temporalRemaining: null,
    });
    for (const table of TABLES) {
      const left = await query(`SELECT 1 FROM ${table} WHERE conversation_id = $1`, [conversationId]);
      expect([table, left.rowCount]).toEqual([table, 0]);
    }
    expect((await query('SELECT 1 FROM ce_payload_claim WHERE claim_hash = $1', ['e'.repeat(64)])).rowCount).toBe(0);
    const record = await query('SELECT * FROM ce_retired_conversation WHERE conversation_digest = $1', [
      retiredDigest(conversationId),
    ]);
    expect(record.rows[0]).toMatchObject({ reason: 'ERASED', erased_by: 'api', temporal_remaining: null });
    expect(JSON.stringify(record.rows[0])).not.toContain(conversationId);

    const again = await send({ conversationId, message: ORDER_MESSAGE });
    expect([again.status, again.json().error.code]).toEqual([410, 'CONVERSATION_RETIRED']);
    const view = await h.request('GET', `/api/v1/console/turns/turn-${conversationId}-1`);
    expect(view.status).toBe(410);
    for (const read of [conversationId, `audit/${conversationId}`, `audit/${conversationId}/trace`]) {
      const gone = await h.request('GET', `/api/v1/conversation/${read}`);
      expect([read, gone.status, gone.json().error.code]).toEqual([read, 410, 'CONVERSATION_RETIRED']);
    }
    // Run again, it finds no row left and keeps the first run's counts in the record. (A real server deletes
    // executions in the background: it may still list, and accept the delete of, one the first run deleted.)
    const second = await h.request('DELETE', `/api/v1/admin/conversations/${conversationId.toUpperCase()}`);
    expect(second.json()).toMatchObject({ rows: { conversations: 0, auditRows: 0 }, temporalRemaining: null });
    const kept = await query('SELECT erased_counts FROM ce_retired_conversation WHERE conversation_digest = $1', [
      retiredDigest(conversationId),
    ]);
    expect(kept.rows[0].erased_counts).toMatchObject({ conversations: 1, turns: 2 });
  });

  it('refuses an id nothing names with 404, retires it with retireUnknown, and erases a retired id again', async () => {
    const unknown = crypto.randomUUID();
    const url = `/api/v1/admin/conversations/${unknown}`;
    const refused = await h.request('DELETE', url);
    expect([refused.status, refused.json().error.code]).toEqual([404, 'CONVERSATION_NOT_FOUND']);
    const digest = [retiredDigest(unknown)];
    const retired = () => query('SELECT 1 FROM ce_retired_conversation WHERE conversation_digest = $1', digest);
    expect((await retired()).rowCount).toBe(0);

    const retiring = await h.request('DELETE', `${url}?terminate=true&retireUnknown=true`);
    expect([retiring.status, retiring.json().rows]).toEqual([200, expect.objectContaining({ conversations: 0 })]);
    expect((await retired()).rowCount).toBe(1);
    expect((await h.request('DELETE', url)).status).toBe(200);
    const sent = await send({ conversationId: unknown, message: ORDER_MESSAGE });
    expect([sent.status, sent.json().error.code]).toEqual([410, 'CONVERSATION_RETIRED']);
  });

  it('erases an id of which only Temporal has a turn run (its first turn, before it wrote a row)', async () => {
    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript([answer('On its way.')]);
    const { conversationId } = (await send({ message: ORDER_MESSAGE })).json();
    for (const table of TABLES) await query(`DELETE FROM ${table} WHERE conversation_id = $1`, [conversationId]);
    const erased = await h.request('DELETE', `/api/v1/admin/conversations/${conversationId}`);
    expect([erased.status, erased.json().executionsDeleted]).toEqual([200, 1]);
  });

  /** Until `sessions` sessions of the database wait for a lock, or a few seconds have passed. */
  async function untilWaiting(sessions: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { rowCount } = await query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        []
      );
      if ((rowCount ?? 0) >= sessions) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('ends a first turn the API accepted as the erase ran: 410 CONVERSATION_RETIRED, no row written', async () => {
    await h.wf.mcp.configure(orderConfig());
    h.wf.mcp.llm.setScript([answer('On its way.')]);
    const conversationId = crypto.randomUUID();
    // The erase is held inside its transaction on a call log row this test locks, until the turn has started.
    await query(
      "INSERT INTO ce_llm_call_log (conversation_id, call_kind, provider, success) VALUES ($1, 'X', 'x', true)",
      [conversationId]
    );
    const holder = await h.wf.mcp.deps.db.$client.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM ce_llm_call_log WHERE conversation_id = $1 FOR UPDATE', [conversationId]);
    const erasing = eraseConversationRows(h.wf.mcp.deps.db, conversationId, { ended: null, erasedBy: 'test' });
    await untilWaiting(1);
    const sending = send({ conversationId, message: ORDER_MESSAGE });
    await untilWaiting(2); // the turn's first step, creating the conversation, waits for the erase
    await holder.query('COMMIT');
    holder.release();
    await erasing;

    const sent = await sending;
    expect([sent.status, sent.json().error.code]).toEqual([410, 'CONVERSATION_RETIRED']);
    for (const table of TABLES) {
      const left = await query(`SELECT 1 FROM ${table} WHERE conversation_id = $1`, [conversationId]);
      expect([table, left.rowCount]).toEqual([table, 0]);
    }
    // Failed for good at its first step's first attempt: no retry, no failure row written by the workflow.
    const handle = h.wf.client.workflow.getHandle(`turn-${conversationId}-1`);
    expect((await handle.describe()).status.name).toBe('FAILED');
    const events = (await handle.fetchHistory()).events ?? [];
    const attempts = events.filter(
      (e) =>
        e.activityTaskScheduledEventAttributes || e.markerRecordedEventAttributes?.markerName === 'core_local_activity'
    );
    expect(attempts).toHaveLength(1);
  });

  it.each([
    ['not a UUID', '/api/v1/admin/conversations/1%27%3B%20DROP%20TABLE%20ce_audit--'],
    ['a path', '/api/v1/admin/conversations/..%2F..%2Fetc'],
    ['an unknown option', `/api/v1/admin/conversations/${crypto.randomUUID()}?force=1`],
  ])('refuses %s with 400', async (_what, url) => {
    const refused = await h.request('DELETE', url);
    expect(refused.status).toBe(400);
  });
});
