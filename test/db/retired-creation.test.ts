import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { loadConversation, ensureConversation } from '../../db/repositories/conversation';
import { eraseConversationRows } from '../../db/repositories/erasure';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * A first turn creating its conversation and an erase of that id (migration 0027): either the erase sees the turn
 * (in flight: it refuses) or the turn's creation is refused (CONVERSATION_RETIRED) and leaves no row, whichever
 * commits first, even when one waits on the other.
 */
describe('creating a conversation a concurrent erase retires', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb.drop());

  const rows = async (id: string) =>
    (await tdb.db.$client.query('SELECT 1 FROM ce_conversation WHERE conversation_id = $1', [id])).rowCount;
  const erase = (id: string) => eraseConversationRows(tdb.db, id, { ended: null, erasedBy: 'test' });

  /** Until some session waits for a lock: the concurrent statement has reached it. */
  async function untilBlocked(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { rowCount } = await tdb.db.$client.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
      );
      if (rowCount) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('nothing waits for a lock');
  }

  async function inTransaction(work: (client: PoolClient) => Promise<void>): Promise<PoolClient> {
    const client = await tdb.db.$client.connect();
    await client.query('BEGIN');
    await work(client);
    return client;
  }

  it('refuses to create an erased id, whether loading a turn or ensuring the row', async () => {
    const id = randomUUID();
    await erase(id);
    await expect(loadConversation(tdb.db, id, 10)).rejects.toMatchObject({ type: 'CONVERSATION_RETIRED' });
    await expect(ensureConversation(tdb.db, id)).rejects.toMatchObject({ type: 'CONVERSATION_RETIRED' });
    expect(await rows(id)).toBe(0);
  });

  it('refuses a creation that runs while the erase is deleting, once the erase commits', async () => {
    const id = randomUUID();
    // The erase is held inside its transaction, after its first statements, on a call log row another session locks.
    await tdb.db.$client.query(
      "INSERT INTO ce_llm_call_log (conversation_id, call_kind, provider, success) VALUES ($1, 'X', 'x', true)",
      [id]
    );
    const holder = await inTransaction(async (c) => {
      await c.query('SELECT 1 FROM ce_llm_call_log WHERE conversation_id = $1 FOR UPDATE', [id]);
    });
    const erasing = erase(id);
    await untilBlocked();
    const creating = loadConversation(tdb.db, id, 10).then(
      () => 'created',
      (err: { type?: string }) => err.type
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await holder.query('COMMIT');
    holder.release();
    expect(await erasing).toMatchObject({ conversations: 0, llmCalls: 1 });
    expect(await creating).toBe('CONVERSATION_RETIRED');
    expect(await rows(id)).toBe(0);
  });

  it('shows the erase a conversation a first turn created while the erase waited: turn 1 is in flight', async () => {
    const id = randomUUID();
    const creator = await inTransaction(async (c) => {
      await c.query('INSERT INTO ce_conversation (conversation_id) VALUES ($1)', [id]);
    });
    const erasing = erase(id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await creator.query('COMMIT');
    creator.release();
    expect(await erasing).toEqual({ inFlight: 1 });
    expect(await rows(id)).toBe(1);
  });
});
