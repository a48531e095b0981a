import { searchConversations } from '../../api/console/conversation-search';
import { insertAudits } from '../../db/repositories/audit';
import { ensureConversation } from '../../db/repositories/conversation';
import { eq } from 'drizzle-orm';
import { ceConversation, ceConversationHistory } from '../../db/schema';
import { conversationsSaying, foundBy } from '../support/console-search';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The console's text search (api/console/conversation-search.ts) on real PostgreSQL: a reply matches by the
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
    await conversationsSaying(tdb, said);
  });
  afterAll(async () => tdb.drop());

  const found = (q: string) => foundBy(tdb, q);

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

/**
 * A turn that fails commits nothing: no history row, no last_user_text. What the user typed is in its USER_INPUT
 * audit row only, and the search finds the conversation by it too (README: "anything the user or the assistant
 * wrote"), also when a later message took the failed turn's number, counted and paged as any other match.
 */
describe('console conversation search over what the user typed in a failed turn', () => {
  let tdb: TestDatabase;
  const FAILED_ONLY = '00000000-0000-4000-8000-00000000b001';
  const SUPERSEDED = '00000000-0000-4000-8000-00000000b002';
  const OTHER = '00000000-0000-4000-8000-00000000b003';

  const userInput = (conversationId: string, text: string, runId: string, stage = 'USER_INPUT') => ({
    conversationId,
    turnNumber: 1,
    stage,
    payload: { text },
    idempotencyKey: `turn-${conversationId}-1@${runId}/03-AuditUserInput/0`,
    workflowId: `turn-${conversationId}-1`,
    runId,
  });

  beforeAll(async () => {
    tdb = await createTestDatabase();
    for (const conversationId of [FAILED_ONLY, SUPERSEDED, OTHER]) await ensureConversation(tdb.db, conversationId);
    await insertAudits(tdb.db, [
      userInput(FAILED_ONLY, 'Can I move my connections within zapper?', 'run-1'),
      userInput(SUPERSEDED, 'Move it within zapper please', 'run-1'),
      userInput(SUPERSEDED, 'hi', 'run-2'),
      // Only USER_INPUT rows say what the user typed: another stage's text is not searched.
      { ...userInput(OTHER, 'within zapper', 'run-1', 'ASSISTANT_OUTPUT'), idempotencyKey: `turn-${OTHER}-1@r/x/0` },
    ]);
    await tdb.db.insert(ceConversationHistory).values({
      conversationId: SUPERSEDED,
      turnNumber: 1,
      userInput: 'hi',
      assistantOutput: { type: 'TEXT', value: 'Hello.' },
    });
  });
  afterAll(async () => tdb.drop());

  it('finds a failed turn, and a failed message a later one superseded, by what the user typed', async () => {
    const found = await searchConversations(tdb.db, { q: 'within ZAPPER', limit: 10 });
    expect(found.items.map((c) => c.conversationId).sort()).toEqual([FAILED_ONLY, SUPERSEDED]);
    expect(found.total).toBe(2);
  });

  it('pages the matches by cursor like any other search', async () => {
    const first = await searchConversations(tdb.db, { q: 'within zapper', limit: 1 });
    expect([first.items.length, first.total, first.next === null]).toEqual([1, 2, false]);
    const second = await searchConversations(tdb.db, { q: 'within zapper', limit: 1, after: first.next ?? undefined });
    expect([second.items.length, second.next]).toEqual([1, null]);
    expect([...first.items, ...second.items].map((c) => c.conversationId).sort()).toEqual([FAILED_ONLY, SUPERSEDED]);
  });

  it('takes % and _ in the search as literal text there too', async () => {
    expect((await searchConversations(tdb.db, { q: 'within_zapper', limit: 10 })).total).toBe(0);
  });
});

/** A conversation whose row says what a turn left in it: its intent, state, last message. */
async function conversationAt(
  tdb: TestDatabase,
  conversationId: string,
  fields: Pick<typeof ceConversation.$inferInsert, 'intentCode' | 'stateCode' | 'lastUserText'>
): Promise<void> {
  await ensureConversation(tdb.db, conversationId);
  await tdb.db.update(ceConversation).set(fields).where(eq(ceConversation.conversationId, conversationId));
}

describe('console conversation filters by intent and state', () => {
  let tdb: TestDatabase;
  const IN_FAQ = '00000000-0000-4000-8000-00000000b001';
  const IN_LOAN = '00000000-0000-4000-8000-00000000b002';

  beforeAll(async () => {
    tdb = await createTestDatabase();
    // A state a config spelled in lower case is stored so: a warning, not an error (docs/config-reference.md).
    const at = [
      [IN_FAQ, 'FAQ', 'ANSWERED'],
      [IN_LOAN, 'LOAN_APPLICATION', 'review'],
    ] as const;
    for (const [conversationId, intentCode, stateCode] of at) {
      await conversationAt(tdb, conversationId, { intentCode, stateCode });
    }
  });
  afterAll(async () => tdb.drop());

  const found = async (filter: { intent?: string; state?: string }) =>
    (await searchConversations(tdb.db, { ...filter, limit: 10 })).items.map((c) => c.conversationId);

  it('compares codes upper-cased and trimmed, as the engine does', async () => {
    expect(await found({ intent: 'FAQ' })).toEqual([IN_FAQ]);
    expect(await found({ intent: 'faq' })).toEqual([IN_FAQ]);
    expect(await found({ intent: ' Faq ' })).toEqual([IN_FAQ]);
    expect(await found({ state: 'answered' })).toEqual([IN_FAQ]);
    expect(await found({ state: 'REVIEW' })).toEqual([IN_LOAN]);
    expect(await found({ intent: 'loan_application', state: 'Review' })).toEqual([IN_LOAN]);
    expect(await found({ intent: 'fa' })).toEqual([]);
  });
});

/**
 * The filters and the text search fold case as the engine does (JavaScript's toUpperCase, whatever the database's
 * locale), here on a database whose collation is ICU tr-TR: there upper('review') is REVİEW and lower('I') is ı.
 */
describe('console conversation filters and search on a tr-TR (ICU) database', () => {
  let tdb: TestDatabase;
  const IN_REVIEW = '00000000-0000-4000-8000-00000000c001';
  const IN_STRASSE = '00000000-0000-4000-8000-00000000c002';
  const IN_ISTANBUL = '00000000-0000-4000-8000-00000000c003';

  beforeAll(async () => {
    tdb = await createTestDatabase({ icuLocale: 'tr-TR' });
    const at = [
      [IN_REVIEW, 'hi review', 'review_pending'],
      [IN_STRASSE, 'wo ist die Straße', 'straße_zustand'],
      [IN_ISTANBUL, 'ÇIKIŞ nerede', 'istanbul_çıkış'],
    ] as const;
    for (const [conversationId, lastUserText, stateCode] of at) {
      await conversationAt(tdb, conversationId, { intentCode: 'faq', stateCode, lastUserText });
    }
  });
  afterAll(async () => tdb.drop());

  const found = async (filter: { intent?: string; state?: string; q?: string }) =>
    (await searchConversations(tdb.db, { ...filter, limit: 10 })).items.map((c) => c.conversationId).sort();

  it('is a tr-TR database, where PostgreSQL upper-cases i to İ', async () => {
    const { rows } = await tdb.pool.query("select upper('review') up");
    expect(rows[0].up).toBe('REVİEW');
  });

  it.each([
    ['review_pending', IN_REVIEW],
    ['REVIEW_PENDING', IN_REVIEW],
    [' Review_Pending ', IN_REVIEW],
    ['straße_zustand', IN_STRASSE],
    ['STRASSE_ZUSTAND', IN_STRASSE],
    ['istanbul_çıkış', IN_ISTANBUL],
    ['ISTANBUL_ÇIKIŞ', IN_ISTANBUL],
  ])('finds state %j as the engine compares it (trimmed, toUpperCase)', async (state, id) => {
    expect(await found({ state })).toEqual([id]);
  });

  it('finds no state the engine would not take for the one asked', async () => {
    expect(await found({ state: 'REVİEW_PENDİNG' })).toEqual([]);
    expect(await found({ state: 'STRAßE_ZUSTAND_X' })).toEqual([]);
    expect(await found({ intent: 'FAQ', state: 'nope' })).toEqual([]);
    expect(await found({ intent: 'FAQ' })).toEqual([IN_REVIEW, IN_STRASSE, IN_ISTANBUL].sort());
  });

  it('searches text case-insensitively the same on every database: I is i, ß is ss', async () => {
    expect(await found({ q: 'REVIEW' })).toEqual([IN_REVIEW]);
    expect(await found({ q: 'STRAßE' })).toEqual([IN_STRASSE]);
    expect(await found({ q: 'çikiş' })).toEqual([IN_ISTANBUL]);
    expect(await found({ q: 'ÇIKIŞ NEREDE' })).toEqual([IN_ISTANBUL]);
    expect(await found({ q: 'STRASSE' })).toEqual([IN_STRASSE]);
  });
});
