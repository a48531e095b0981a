import { eq } from 'drizzle-orm';
import { searchConversations } from '../../api/console/conversation-search';
import { ensureConversation } from '../../db/repositories/conversation';
import { ceConversation } from '../../db/schema';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * One console search (api/console/conversation-search.ts) is bounded as a whole: the intent and state spellings it
 * reads first, the page and the count share one deadline, and past it the search is 503 SEARCH_TOO_SLOW. Statements
 * are held up here by another session's lock on the table they read (statement_timeout counts a lock wait), which
 * that session releases on a timer.
 */
describe('console conversation search deadline', () => {
  let tdb: TestDatabase;
  const CONVERSATION = '00000000-0000-4000-8000-00000000d001';

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await ensureConversation(tdb.db, CONVERSATION);
    await tdb.db
      .update(ceConversation)
      .set({ intentCode: 'FAQ', lastUserText: 'where is my parcel' })
      .where(eq(ceConversation.conversationId, CONVERSATION));
  });
  afterAll(async () => tdb.drop());

  /** Locks `table` from another session, for `ms`; `released` resolves once the lock is released. */
  async function lockFor(table: string, ms: number): Promise<{ released: Promise<void> }> {
    const client = await tdb.pool.connect();
    await client.query(`BEGIN; LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const released = new Promise<void>((resolve) =>
      setTimeout(() => void client.query('ROLLBACK').finally(() => resolve(client.release())), ms)
    );
    return { released };
  }

  const TOO_SLOW = { statusCode: 503, code: 'SEARCH_TOO_SLOW' };

  it('reads the intent and state spellings within the search time', async () => {
    const { released } = await lockFor('ce_conversation', 2_000);
    try {
      await expect(searchConversations(tdb.db, { intent: 'faq', state: 'x', limit: 5 }, 500)).rejects.toMatchObject(
        TOO_SLOW
      );
    } finally {
      await released;
    }
  });

  it('gives each statement what is left of the search time, not the whole of it again', async () => {
    // The spellings wait 1.2 s of 2.5; the page's statement then waits on ce_audit until 3.3 s: within 2.5 s of its
    // own start, not within what was left of the search's 2.5 s.
    const locks = [await lockFor('ce_conversation', 1_200), await lockFor('ce_audit', 3_300)];
    try {
      await expect(searchConversations(tdb.db, { intent: 'faq', q: 'parcel', limit: 5 }, 2_500)).rejects.toMatchObject(
        TOO_SLOW
      );
    } finally {
      await Promise.all(locks.map((lock) => lock.released));
    }
    expect((await searchConversations(tdb.db, { intent: 'faq', q: 'parcel', limit: 5 })).items).toHaveLength(1);
  });
});
