import { searchConversations } from '../../api/console/queries';
import { ensureConversation } from '../../db/repositories/conversation';
import { ceConversationHistory } from '../../db/schema';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The console's text search (api/console/queries.ts) on real PostgreSQL: a reply matches by the
 * text it shows, never by the JSON it is stored as (every reply has `type`, `value`, quotes).
 */
describe('console conversation search over what the assistant said', () => {
  let tdb: TestDatabase;
  const TEXT_REPLY = '00000000-0000-4000-8000-00000000a001';
  const JSON_REPLY = '00000000-0000-4000-8000-00000000a002';
  const BARE_REPLY = '00000000-0000-4000-8000-00000000a003';
  const QUOTING_REPLY = '00000000-0000-4000-8000-00000000a004';
  const ARRAY_REPLY = '00000000-0000-4000-8000-00000000a005';

  beforeAll(async () => {
    tdb = await createTestDatabase();
    const said = [
      [TEXT_REPLY, 'where is my parcel', { type: 'TEXT', value: 'Order 50%_done, soon.' }],
      // A JSON reply is stored as the JSON itself (persist-conversation.ts), an array as much as an object.
      [JSON_REPLY, 'loan please', { decision: 'approved', amount: 350000, notes: ['C-x'] }],
      [ARRAY_REPLY, 'my orders', [{ sku: 'K-7', state: 'shipped' }]],
      [BARE_REPLY, 'hello there', 'Welcome back'],
      [QUOTING_REPLY, 'files', { type: 'TEXT', value: 'Type "dir C:\\tmp"' }],
    ] as const;
    for (const [conversationId, userInput, assistantOutput] of said) {
      await ensureConversation(tdb.db, conversationId);
      await tdb.db.insert(ceConversationHistory).values({ conversationId, turnNumber: 1, userInput, assistantOutput });
    }
  });
  afterAll(async () => tdb.drop());

  const found = async (q: string) =>
    (await searchConversations(tdb.db, { q, limit: 10 })).items.map((c) => c.conversationId).sort();

  it.each(['value', 'TEXT', 'JSON', 'decision', 'sku', '{', '}', '['])(
    'finds no conversation by %j, which only the stored JSON has',
    async (q) => expect(await found(q)).toEqual([])
  );

  it.each(['"', '\\', ':', 'type'])('finds only the reply whose text has %j, not every stored reply', async (q) =>
    expect(await found(q)).toEqual([QUOTING_REPLY])
  );

  it('finds a reply by its text, a JSON reply by its values, and what the user wrote', async () => {
    expect(await found('50%_done')).toEqual([TEXT_REPLY]);
    expect(await found('"dir C:\\tmp"')).toEqual([QUOTING_REPLY]);
    expect(await found('APPROVED')).toEqual([JSON_REPLY]);
    expect(await found('350000')).toEqual([JSON_REPLY]);
    expect(await found('c-X')).toEqual([JSON_REPLY]);
    expect(await found('k-7')).toEqual([ARRAY_REPLY]);
    expect(await found('shipped')).toEqual([ARRAY_REPLY]);
    expect(await found('welcome')).toEqual([BARE_REPLY]);
    expect(await found('parcel')).toEqual([TEXT_REPLY]);
  });

  it('takes % and _ in the search as literal text', async () => {
    expect(await found('5_%')).toEqual([]);
    expect(await found('0%_')).toEqual([TEXT_REPLY]);
    expect(await found('_')).toEqual([TEXT_REPLY]);
    expect(await found('%')).toEqual([TEXT_REPLY]);
  });
});
