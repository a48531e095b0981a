import { Client } from 'pg';
import { searchConversations } from '../../api/console/conversation-search';
import { SEARCH_COUNT_CAP } from '../../api/console/ports';
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

  it('compiles no statement of a broad search (JIT), which costs more than it saves', async () => {
    // EXPLAIN ANALYZE of each statement that reads ce_audit, on the search's own connection and transaction, just
    // before it runs: what PostgreSQL does with it there. Its plan's cost, from ce_reply_search_text's 100 a row over
    // every reply, is above jit_above_cost, so a server built with LLVM compiled it.
    const plans: Promise<{ rows: { 'QUERY PLAN': [Record<string, unknown>] }[] }>[] = [];
    const query = jest.spyOn(Client.prototype, 'query');
    query.mockImplementation(function (this: Client, ...args: unknown[]) {
      const config = args[0] as { text?: unknown; values?: unknown[] } | string;
      if (typeof config === 'object' && typeof config.text === 'string' && config.text.includes('ce_audit')) {
        const explain = `EXPLAIN (ANALYZE, FORMAT JSON) ${config.text}`;
        const values = config.values ?? (args[1] as unknown[] | undefined) ?? [];
        plans.push(originalQuery.apply(this, [explain, values] as never) as never);
      }
      return originalQuery.apply(this, args as never);
    });
    try {
      await searchConversations(tdb.db, { q: 'ships soon', limit: 25 });
    } finally {
      query.mockRestore();
    }
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of await Promise.all(plans)) expect(plan.rows[0]!['QUERY PLAN'][0]).not.toHaveProperty('JIT');
  });

  it('finds what the indexes hold, by any case', async () => {
    const typed = (await tdb.pool.query<{ t: string }>(`SELECT md5('a' || 17 || 1) AS t`)).rows[0]!.t;
    const page = await searchConversations(tdb.db, { q: `TYPED ${typed.toUpperCase()}`, limit: 25 });
    const wanted = (await tdb.pool.query<{ id: string }>(`SELECT md5('c' || 17)::uuid::text AS id`)).rows[0]!.id;
    expect(page.items.map((c) => c.conversationId)).toEqual([wanted]);
    expect(page).toMatchObject({ total: 1 });
    expect(page.totalCapped).toBeUndefined();
  });

  it(`counts matches up to ${SEARCH_COUNT_CAP}, and says there are more`, async () => {
    const page = await searchConversations(tdb.db, { q: 'ships soon', limit: 25 });
    expect(page.items).toHaveLength(25);
    expect(page).toMatchObject({ total: SEARCH_COUNT_CAP, totalCapped: true });
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
});
