import { Client } from 'pg';
import { searchConversations } from '../../api/console/conversation-search';
import { SEARCH_COUNT_CAP, type ConversationCursor, type ConversationSearch } from '../../api/console/ports';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The console's text search (api/console/conversation-search.ts) on a database with enough rows for the planner to choose as it
 * does in production: it reads ce_audit through the trigram index of USER_INPUT texts (db/search-indexes.ts), never
 * the whole table; it counts no further than SEARCH_COUNT_CAP; and a statement that runs too long is a 503
 * SEARCH_TOO_SLOW, not a read slot held for as long as it takes.
 */
describe('console conversation search on a large database', () => {
  let tdb: TestDatabase;
  const CONVERSATIONS = 4000;
  const AUDIT_ROWS_PER_CONVERSATION = 15;
  const originalQuery = Client.prototype.query;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    // Written as a turn's commit leaves them (2 turns, a USER_INPUT audit row each), in bulk: triggers and foreign
    // keys off for the copy (the retired-id trigger takes a lock per row), as a restore loads rows.
    await tdb.pool.query(`BEGIN; SET LOCAL session_replication_role = replica;
      INSERT INTO ce_conversation (conversation_id, last_user_text, turn_count, updated_at)
        SELECT md5('c' || i)::uuid, 'where is order ' || md5('u' || i), 2, now() - i * interval '1 second'
        FROM generate_series(1, ${CONVERSATIONS}) i;
      INSERT INTO ce_conversation_history (conversation_id, turn_number, user_input, assistant_output)
        SELECT md5('c' || i)::uuid, t, 'message ' || md5('u' || i || t),
          jsonb_build_object('type', 'TEXT', 'value', 'Your parcel ' || md5('r' || i || t) || ' ships soon')
        FROM generate_series(1, ${CONVERSATIONS}) i, generate_series(1, 2) t;
      INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
        SELECT md5('c' || i)::uuid, 1 + k % 2, CASE WHEN k < 2 THEN 'USER_INPUT' ELSE 'STEP_' || k END,
          jsonb_build_object('text', 'typed ' || md5('a' || i || k), 'blob', repeat('x', 200)), 'seed/' || i || '/' || k
        FROM generate_series(1, ${CONVERSATIONS}) i, generate_series(0, ${AUDIT_ROWS_PER_CONVERSATION - 1}) k;
      COMMIT;
      ANALYZE ce_conversation; ANALYZE ce_conversation_history; ANALYZE ce_audit;`);
  }, 120_000);
  afterAll(async () => tdb.drop());

  /** The statements a search sends that read ce_audit, as sent (text and bound values). */
  async function auditStatements(q: string): Promise<{ text: string; values: unknown[] }[]> {
    const sent: { text: string; values: unknown[] }[] = [];
    const query = jest.spyOn(Client.prototype, 'query');
    query.mockImplementation(function (this: Client, ...args: unknown[]) {
      const config = args[0] as { text?: unknown; values?: unknown[] } | string;
      if (typeof config === 'object' && typeof config.text === 'string' && config.text.includes('ce_audit'))
        sent.push({ text: config.text, values: config.values ?? (args[1] as unknown[] | undefined) ?? [] });
      return originalQuery.apply(this, args as never);
    });
    try {
      await searchConversations(tdb.db, { q, limit: 25 });
    } finally {
      query.mockRestore();
    }
    return sent;
  }

  type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };
  const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

  it('reads ce_audit through the trigram index of what users typed, never the whole table', async () => {
    const { rows: trgm } = await tdb.pool.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'");
    // The test server ships pg_trgm (PostgreSQL's contrib): migrate created it and built the indexes.
    expect(trgm).toHaveLength(1);
    const statements = await auditStatements('zzznomatch');
    expect(statements.length).toBeGreaterThan(0);
    for (const { text, values } of statements) {
      const { rows } = await tdb.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) ${text}`,
        values
      );
      const plan = nodes(rows[0]!['QUERY PLAN'][0].Plan);
      const onAudit = plan.filter((n) => n['Relation Name'] === 'ce_audit' || n['Index Name']?.startsWith('ce_audit'));
      expect(onAudit.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      expect(onAudit.map((n) => n['Index Name']).filter(Boolean)).toEqual(['ce_audit_user_input_trgm_idx']);
    }
  });

  type AnalyzedNode = PlanNode & {
    'Actual Rows': number;
    'Actual Loops': number;
    'Rows Removed by Filter'?: number;
    'Rows Removed by Index Recheck'?: number;
  };

  /**
   * EXPLAIN ANALYZE of each statement a search sends that names `table`, on the search's own connection and
   * transaction, just before it runs: what PostgreSQL does with it there.
   */
  async function analyzedWhile(search: ConversationSearch, table: string): Promise<Record<string, unknown>[]> {
    const plans: Promise<{ rows: { 'QUERY PLAN': [Record<string, unknown>] }[] }>[] = [];
    const query = jest.spyOn(Client.prototype, 'query');
    query.mockImplementation(function (this: Client, ...args: unknown[]) {
      const config = args[0] as { text?: unknown; values?: unknown[] } | string;
      if (typeof config === 'object' && typeof config.text === 'string' && config.text.includes(table)) {
        const explain = `EXPLAIN (ANALYZE, FORMAT JSON) ${config.text}`;
        const values = config.values ?? (args[1] as unknown[] | undefined) ?? [];
        plans.push(originalQuery.apply(this, [explain, values] as never) as never);
      }
      return originalQuery.apply(this, args as never);
    });
    try {
      await searchConversations(tdb.db, search);
    } finally {
      query.mockRestore();
    }
    return (await Promise.all(plans)).map((plan) => plan.rows[0]!['QUERY PLAN'][0]);
  }

  it('compiles no statement of a broad search (JIT), which costs more than it saves', async () => {
    // Its plan's cost, from ce_reply_search_text's 100 a row over every reply, is above jit_above_cost, so a server
    // built with LLVM compiled it.
    const plans = await analyzedWhile({ q: 'ships soon', limit: 25 }, 'ce_audit');
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) expect(plan).not.toHaveProperty('JIT');
  });

  it('reads a bounded number of rows for the first page of a text every conversation holds', async () => {
    // Rows each table's scans looked at (returned or filtered out), over all the search's statements: not every
    // match (the 8,000 replies and 4,000 conversations that hold the text), but the rows read through the indexes
    // before the search walks the list (SEARCH_COUNT_CAP + 1) and the page's conversations, each checked alone.
    const examined = new Map<string, number>();
    for (const plan of await analyzedWhile({ q: 'ships soon', limit: 25 }, 'ce_conversation')) {
      for (const node of nodes(plan['Plan'] as PlanNode) as AnalyzedNode[]) {
        const table = node['Relation Name'];
        if (!table) continue;
        const rows = node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0);
        examined.set(table, (examined.get(table) ?? 0) + rows * node['Actual Loops']);
      }
    }
    expect(examined.get('ce_conversation_history')).toBeLessThanOrEqual(SEARCH_COUNT_CAP + 1 + 2 * 26);
    expect(examined.get('ce_audit') ?? 0).toBeLessThanOrEqual(2 * 26);
    // The conversations of those rows, counted, and the walk's window, whose end is read through the list's index.
    expect(examined.get('ce_conversation')).toBeLessThanOrEqual(2 * (SEARCH_COUNT_CAP + 1) + 26);
  });

  it('pages through a text most conversations hold, each once and in order', async () => {
    // Two letters: no trigram, and more rows hold them than the search reads through the indexes, so it walks the list.
    const { rows: expected } = await tdb.pool.query<{ id: string }>(`
      SELECT c.conversation_id::text AS id FROM ce_conversation c
       WHERE strpos(c.conversation_id::text || ' ' || c.last_user_text, '1a') > 0
          OR EXISTS (SELECT 1 FROM ce_conversation_history h WHERE h.conversation_id = c.conversation_id
                AND strpos(h.user_input || ' ' || (h.assistant_output ->> 'value'), '1a') > 0)
          OR EXISTS (SELECT 1 FROM ce_audit a WHERE a.conversation_id = c.conversation_id
                AND a.stage = 'USER_INPUT' AND strpos(a.payload_json ->> 'text', '1a') > 0)
       ORDER BY c.updated_at DESC, c.conversation_id DESC`);
    expect(expected.length).toBeGreaterThan(SEARCH_COUNT_CAP);
    expect(expected.length).toBeLessThan(CONVERSATIONS);
    const seen: string[] = [];
    let after: ConversationCursor | undefined;
    for (let pages = 0; pages < CONVERSATIONS / 100; pages++) {
      const page = await searchConversations(tdb.db, { q: '1a', limit: 100, ...(after && { after }) });
      // A lower bound: what it has seen so far is at least as many, on any page.
      expect(page).toMatchObject({ totalCapped: true });
      expect(page.total).toBeGreaterThanOrEqual(Math.min(page.items.length, SEARCH_COUNT_CAP));
      seen.push(...page.items.map((c) => c.conversationId));
      if (!page.next) break;
      after = page.next;
    }
    expect(seen).toEqual(expected.map((r) => r.id));
  }, 60_000);

  it('finds what the indexes hold, by any case', async () => {
    const typed = (await tdb.pool.query<{ t: string }>(`SELECT md5('a' || 17 || 1) AS t`)).rows[0]!.t;
    const page = await searchConversations(tdb.db, { q: `TYPED ${typed.toUpperCase()}`, limit: 25 });
    const wanted = (await tdb.pool.query<{ id: string }>(`SELECT md5('c' || 17)::uuid::text AS id`)).rows[0]!.id;
    expect(page.items.map((c) => c.conversationId)).toEqual([wanted]);
    expect(page).toMatchObject({ total: 1 });
    expect(page.totalCapped).toBeUndefined();
  });

  it(`counts a text more rows hold than it reads through the indexes as a lower bound, up to ${SEARCH_COUNT_CAP}`, async () => {
    const page = await searchConversations(tdb.db, { q: 'ships soon', limit: 25 });
    expect(page.items).toHaveLength(25);
    // Of the rows it read through the indexes (one per reply, two a conversation) before it walked the list.
    expect(page).toMatchObject({ totalCapped: true });
    expect(page.total).toBeGreaterThanOrEqual(SEARCH_COUNT_CAP / 2);
    expect(page.total).toBeLessThanOrEqual(SEARCH_COUNT_CAP);
  });

  it('stops a search that runs too long with 503 SEARCH_TOO_SLOW', async () => {
    // One letter: no trigram to look up, so every text is read; far longer than 1 ms on these rows.
    await expect(searchConversations(tdb.db, { q: 'e', limit: 25 }, 1)).rejects.toMatchObject({
      statusCode: 503,
      code: 'SEARCH_TOO_SLOW',
    });
    // The connection's own statement_timeout is left as it was: the limit was the search's transaction's.
    const { rows } = await tdb.pool.query<{ t: string }>('SHOW statement_timeout');
    expect(rows.map((r) => r.t)).not.toContain('1ms');
  });

  it('finds a text many rows of few conversations hold through the indexes, not by checking every conversation', async () => {
    // 1,200 messages of the oldest conversation: more rows than the search first reads, one conversation of 4,000.
    const oldest = (await tdb.pool.query<{ id: string }>(`SELECT md5('c' || ${CONVERSATIONS})::uuid::text AS id`))
      .rows[0]!.id;
    await tdb.pool.query(
      `INSERT INTO ce_conversation_history (conversation_id, turn_number, user_input, assistant_output)
        SELECT $1, t, 'zebra crossing ' || t, '"ok"'::jsonb FROM generate_series(3, 1202) t`,
      [oldest]
    );
    const plans = await analyzedWhile({ q: 'zebra crossing', limit: 25 }, 'ce_conversation_history');
    // The walk checks one window of conversations (SEARCH_COUNT_CAP), then the indexes find the rest.
    for (const plan of plans) {
      const onHistory = (nodes(plan['Plan'] as PlanNode) as AnalyzedNode[]).filter(
        (node) => node['Relation Name'] === 'ce_conversation_history'
      );
      for (const node of onHistory) expect(node['Actual Loops']).toBeLessThanOrEqual(SEARCH_COUNT_CAP);
    }
    const page = await searchConversations(tdb.db, { q: 'zebra crossing', limit: 25 });
    expect(page.items.map((c) => c.conversationId)).toEqual([oldest]);
    expect(page).toMatchObject({ total: 1, next: null });
    expect(page.totalCapped).toBeUndefined();
  });
});
