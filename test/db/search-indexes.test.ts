import { searchConversations } from '../../api/console/conversation-search';
import { ensureConversation } from '../../db/repositories/conversation';
import { ensureSearchIndexes, SEARCH_INDEX_NAMES } from '../../db/search-indexes';
import { ceConversationHistory } from '../../db/schema';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The console search's trigram indexes (db/search-indexes.ts) on a database that cannot have pg_trgm (a managed
 * database that does not offer it, a login that may not create it): `migrate` says so and goes on, the search works
 * without them, and a later `migrate` that can create the extension builds them.
 */
describe('console search indexes where pg_trgm cannot be created', () => {
  let tdb: TestDatabase;
  const CONVERSATION = '00000000-0000-4000-8000-00000000b001';

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await ensureConversation(tdb.db, CONVERSATION);
    await tdb.db.insert(ceConversationHistory).values({
      conversationId: CONVERSATION,
      turnNumber: 1,
      userInput: 'Straße nach Izmir',
      assistantOutput: { type: 'TEXT', value: 'Your PARCEL ships soon' },
    });
    // The database without the extension: its indexes go with it.
    await tdb.pool.query('DROP EXTENSION pg_trgm CASCADE');
  });
  afterAll(async () => tdb.drop());

  const indexes = async () =>
    (
      await tdb.pool.query<{ name: string }>(
        'SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indisvalid ' +
          'AND c.relname = ANY($1) ORDER BY 1',
        [SEARCH_INDEX_NAMES]
      )
    ).rows.map((r) => r.name);

  it('says why, builds nothing and fails nothing when the login may not create the extension', async () => {
    const client = await tdb.pool.connect();
    try {
      // The SQL tools' role has no CREATE on the database, as a managed database's login may not.
      await client.query(`SET ROLE ${client.escapeIdentifier(tdb.toolsRole)}`);
      const notes = await ensureSearchIndexes(client);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(
        /^console search \(q\) has no trigram index \(the pg_trgm extension could not be created: /
      );
      expect(notes[0]).toContain('run `convengine migrate` again');
    } finally {
      await client.query('RESET ROLE');
      client.release();
    }
    expect(await indexes()).toEqual([]);
  });

  it('finds the same conversations without the indexes', async () => {
    const found = async (q: string) =>
      (await searchConversations(tdb.db, { q, limit: 5 })).items.map((c) => c.conversationId);
    for (const q of ['STRAßE', 'nach IZMIR', 'parcel ships']) expect(await found(q)).toEqual([CONVERSATION]);
    // Case folded as with them (db/search-collation.ts): ß is ss.
    expect(await found('STRASSE')).toEqual([CONVERSATION]);
  });

  it('builds them once the extension can be created', async () => {
    const client = await tdb.pool.connect();
    try {
      expect(await ensureSearchIndexes(client)).toEqual([]);
    } finally {
      client.release();
    }
    expect(await indexes()).toEqual([...SEARCH_INDEX_NAMES].sort());
    expect((await searchConversations(tdb.db, { q: 'PARCEL SHIPS', limit: 5 })).items).toHaveLength(1);
  });
});
