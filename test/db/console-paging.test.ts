import { searchConversations } from '../../api/console/conversation-search';
import type { ConversationCursor, ConversationSearch } from '../../api/console/ports';
import { ensureConversation } from '../../db/repositories/conversation';
import { createTestDatabase, type TestDatabase } from '../support/database';

/** The conversation `n` (a…f, x for the one a turn opens while a caller pages). */
const id = (n: string) => `00000000-0000-4000-8000-0000000000${n.charCodeAt(0).toString(16)}`;

/**
 * The console's conversation list, paged by (updated_at, id) on real PostgreSQL (api/console/queries.ts): a
 * caller walking the pages sees every conversation no turn touched exactly once, whatever turns do meanwhile.
 */
describe('console conversation list pages by cursor', () => {
  let tdb: TestDatabase;
  const setUpdatedAt = (n: string, at: string) =>
    tdb.db.execute(`update ce_conversation set updated_at = '${at}' where conversation_id = '${id(n)}'`);

  beforeEach(async () => {
    tdb = await createTestDatabase();
    // Newest first: a, then b and c in the same millisecond (c's id sorts first, b is newer by 56 µs), then d and
    // e at the same microsecond (by id: e, then d), then f.
    const at: [string, string][] = [
      ['a', '2026-03-01T10:00:00.900000Z'],
      ['b', '2026-03-01T10:00:00.500456Z'],
      ['c', '2026-03-01T10:00:00.500400Z'],
      ['d', '2026-03-01T10:00:00.100000Z'],
      ['e', '2026-03-01T10:00:00.100000Z'],
      ['f', '2026-03-01T09:00:00.000000Z'],
    ];
    for (const [n, when] of at) {
      await ensureConversation(tdb.db, id(n));
      await setUpdatedAt(n, when);
    }
  });
  afterEach(async () => tdb.drop());

  const page = async (after?: ConversationCursor, search: Partial<ConversationSearch> = {}) => {
    const found = await searchConversations(tdb.db, { limit: 2, ...search, ...(after ? { after } : {}) });
    return { ...found, ids: found.items.map((c) => c.conversationId) };
  };
  const names = (ids: string[]) => ids.map((i) => String.fromCharCode(parseInt(i.slice(-2), 16)));

  it('walks every conversation once in order, ties in a millisecond or a microsecond included', async () => {
    const seen: string[] = [];
    let after: ConversationCursor | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const next = await page(after);
      expect(next.total).toBe(6);
      seen.push(...next.ids);
      if (!next.next) break;
      after = next.next;
    }
    expect(names(seen)).toEqual(['a', 'b', 'c', 'e', 'd', 'f']);
  });

  it('neither repeats nor skips a conversation when turns move others to the top between page reads', async () => {
    const first = await page();
    expect(names(first.ids)).toEqual(['a', 'b']);
    // A turn opens conversation x, and one answers in d: both now lead the list.
    await ensureConversation(tdb.db, id('x'));
    await setUpdatedAt('d', new Date().toISOString());
    const second = await page(first.next ?? undefined);
    const third = await page(second.next ?? undefined);
    expect([names(second.ids), names(third.ids), third.next]).toEqual([['c', 'e'], ['f'], null]);
    expect(names((await page()).ids)).toEqual(['d', 'x']);
  });

  it('pages within a filter, and says where the next page starts only when there is one', async () => {
    await tdb.db.execute(
      `update ce_conversation set status = 'BLOCKED' where conversation_id in ('${id('b')}', '${id('e')}', '${id('f')}')`
    );
    const first = await page(undefined, { status: 'BLOCKED' });
    expect([names(first.ids), first.total, first.next]).toEqual([
      ['b', 'e'],
      3,
      { updatedAtMicros: String(Date.parse('2026-03-01T10:00:00.100Z') * 1000), conversationId: id('e') },
    ]);
    const last = await page(first.next ?? undefined, { status: 'BLOCKED' });
    expect([names(last.ids), last.total, last.next]).toEqual([['f'], 3, null]);
    expect((await page(undefined, { status: 'BLOCKED', limit: 3 })).next).toBeNull();
  });
});
