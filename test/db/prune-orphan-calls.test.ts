/**
 * `conversations prune` sweeps the LLM call log rows older than its cutoff that belong to no conversation
 * (db/repositories/prune-orphan-calls.ts) through the (conversation_id, llm_call_id) index: the rows of no
 * conversation, then one entry per conversation the log names. It read every call log row older than the cutoff each
 * run, the old calls of conversations still in use that it keeps among them (100,000 rows: 210-310 ms a run); before
 * that, it read them again from the table's start for each batch.
 */
import { pruneConversations } from '../../db/repositories/retention';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  blocksRead,
  explainingDatabase,
  rowsRead,
  type ExplainedStatement,
  type PlanNode,
} from '../support/explained-reads';

/** The first node of `plan` (itself included) that `matches`. */
function findNode(plan: PlanNode, matches: (node: PlanNode) => boolean): PlanNode | undefined {
  if (matches(plan)) return plan;
  for (const child of plan.Plans ?? []) {
    const found = findNode(child, matches);
    if (found) return found;
  }
  return undefined;
}

/** Old calls of conversations still in use, kept; then orphans; then newer calls, which the sweep must not read. */
const KEPT = 20_000;
const ORPHANS = 1_000;
/** The conversations the log names: 20 in use, and one gone per odd orphan. */
const GONE = ORPHANS / 2;
const NAMED = 20 + GONE;
const NEWER = 30_000;
const BATCH = 100;

describe('the sweep of orphaned LLM call log rows', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await tdb.pool.query(
      `INSERT INTO ce_conversation (conversation_id, turn_count, updated_at)
       SELECT md5('live' || i)::uuid, 1, now() FROM generate_series(1, 20) i`
    );
    const calls = (conversation: string, from: string, count: number) =>
      tdb.pool.query(
        `INSERT INTO ce_llm_call_log (conversation_id, call_kind, provider, success, created_at)
         SELECT ${conversation}, 'DA', 'test', true, now() - $1::interval + i * interval '1 second'
           FROM generate_series(1, $2::int) i`,
        [from, count]
      );
    await calls(`md5('live' || (i % 20 + 1))::uuid`, '300 days', KEPT);
    // Half belong to no conversation, half to conversations gone (logged after their prune, say).
    await calls(`CASE WHEN i % 2 = 0 THEN NULL ELSE md5('gone' || i)::uuid END`, '200 days', ORPHANS);
    await calls(`md5('live' || (i % 20 + 1))::uuid`, '10 days', NEWER);
    await tdb.pool.query('ANALYZE ce_llm_call_log, ce_conversation');
  }, 120_000);
  afterAll(async () => tdb?.drop());

  it('reads the rows it deletes and one index entry per conversation, not the old calls it keeps', async () => {
    const cutoff = new Date(Date.now() - 90 * 24 * 3600 * 1000);
    const readOf = (statements: ExplainedStatement[]) =>
      statements.reduce((sum, s) => sum + rowsRead(s.plan, 'ce_llm_call_log'), 0);
    const dryReads: ExplainedStatement[] = [];
    const dry = await pruneConversations(
      explainingDatabase(tdb.db, (s) => dryReads.push(s)),
      cutoff,
      {
        dryRun: true,
        batchSize: BATCH,
      }
    );
    expect(dry).toMatchObject({ conversations: 0, llmCalls: ORPHANS });

    const reads: ExplainedStatement[] = [];
    const pruned = await pruneConversations(
      explainingDatabase(tdb.db, (s) => reads.push(s)),
      cutoff,
      {
        batchSize: BATCH,
      }
    );
    expect(pruned).toEqual(dry);
    const left = await tdb.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM ce_llm_call_log');
    expect(left.rows).toEqual([{ n: KEPT + NEWER }]);
    // What it deletes (each orphan read three times at most: found, probed, deleted), one index entry per conversation
    // the log names and one more (its first call) per gone one, and a span of newer rows of no conversation; never the
    // old calls of conversations in use.
    for (const statements of [dryReads, reads]) {
      expect(readOf(statements)).toBeLessThanOrEqual(3 * ORPHANS + NAMED + GONE + 4 * BATCH);
    }
  }, 120_000);
});

describe('the sweep of a gone conversation named by the nil UUID', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb?.drop());

  it('deletes its old calls too: a client may name a conversation by any UUID', async () => {
    const nil = '00000000-0000-0000-0000-000000000000';
    await tdb.pool.query(
      `INSERT INTO ce_llm_call_log (conversation_id, call_kind, provider, success, created_at)
       VALUES ($1, 'DA', 'test', true, now() - interval '200 days')`,
      [nil]
    );
    const cutoff = new Date(Date.now() - 90 * 24 * 3600 * 1000);
    const pruned = await pruneConversations(tdb.db, cutoff, { dryRun: false, batchSize: BATCH });
    expect(pruned).toMatchObject({ llmCalls: 1 });
    const { rows } = await tdb.pool.query('SELECT count(*)::int AS n FROM ce_llm_call_log');
    expect(rows[0].n).toBe(0);
  });
});

describe('the sweep of a gone conversation with more old calls than a statement deletes', () => {
  /** Two conversations a batch: the sweep deletes at most 2 * 4 calls a statement. */
  const SMALL_BATCH = 2;
  const PER_STATEMENT = SMALL_BATCH * 4;
  const OLD_CALLS = 30;
  const gone = 'b0b0b0b0-0000-4000-8000-000000000001';
  const alsoGone = 'b0b0b0b0-0000-4000-8000-000000000004';
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb?.drop());

  const insertCalls = (conversationId: string, age: string, count: number) =>
    tdb.pool.query(
      `INSERT INTO ce_llm_call_log (conversation_id, call_kind, provider, success, created_at)
       SELECT $1::uuid, 'DA', 'test', true, now() - $2::interval + i * interval '1 second'
         FROM generate_series(1, $3::int) i`,
      [conversationId, age, count]
    );
  const callsOf = async (conversationId: string) =>
    (
      await tdb.pool.query('SELECT count(*)::int AS n FROM ce_llm_call_log WHERE conversation_id = $1', [
        conversationId,
      ])
    ).rows[0].n as number;

  /** Runs a prune, returning what each of its statements deleted (the steps of its progress) and its result. */
  async function prune(stopAfterFirstDelete = false) {
    const cutoff = new Date(Date.now() - 90 * 24 * 3600 * 1000);
    const stop = new AbortController();
    const steps: number[] = [];
    let seen = 0;
    const result = await pruneConversations(tdb.db, cutoff, {
      batchSize: SMALL_BATCH,
      stop: stop.signal,
      onBatch: ({ counts }) => {
        if (counts.llmCalls > seen) steps.push(counts.llmCalls - seen);
        seen = counts.llmCalls;
        if (stopAfterFirstDelete && seen > 0) stop.abort();
      },
    });
    return { steps, result };
  }

  it('deletes them over several statements, none deleting more than its bound, and keeps the newer ones', async () => {
    await insertCalls(gone, '200 days', OLD_CALLS);
    await insertCalls(gone, '10 days', 3);
    // A second one, after it in uuid order: a statement goes on from the first's last call to the second's calls.
    await insertCalls(alsoGone, '150 days', 13);
    const { steps, result } = await prune();
    expect(result).toMatchObject({ llmCalls: OLD_CALLS + 13 });
    expect(Math.max(...steps)).toBeLessThanOrEqual(PER_STATEMENT);
    expect(steps.length).toBe(Math.ceil((OLD_CALLS + 13) / PER_STATEMENT));
    expect(await callsOf(gone)).toBe(3);
    expect(await callsOf(alsoGone)).toBe(0);
  });

  it('stopped between its statements, it leaves the rest for the next run, which deletes them', async () => {
    await tdb.pool.query('DELETE FROM ce_llm_call_log');
    await insertCalls(gone, '200 days', OLD_CALLS);
    const first = await prune(true);
    expect(first.result).toMatchObject({ llmCalls: PER_STATEMENT, interrupted: true });
    expect(await callsOf(gone)).toBe(OLD_CALLS - PER_STATEMENT);
    const again = await prune();
    expect(again.result).toMatchObject({ llmCalls: OLD_CALLS - PER_STATEMENT });
    expect(await callsOf(gone)).toBe(0);
  });
  it('stopped while its last statement ran, it has finished, and says it was not interrupted', async () => {
    await tdb.pool.query('DELETE FROM ce_llm_call_log');
    await insertCalls(gone, '200 days', PER_STATEMENT - 1);
    const { result } = await prune(true);
    expect(result.llmCalls).toBe(PER_STATEMENT - 1);
    expect(result.interrupted).toBeUndefined();
    expect(await callsOf(gone)).toBe(0);
  });

  it('takes the first calls of its span in (conversation, call) order by a sort of its own, not the plan', async () => {
    // The keyset goes on from the last call a statement picked: only right when its picks are the first in that order.
    await tdb.pool.query('DELETE FROM ce_llm_call_log');
    await insertCalls(gone, '200 days', OLD_CALLS);
    await insertCalls(alsoGone, '150 days', 13);
    const deletes: ExplainedStatement[] = [];
    const cutoff = new Date(Date.now() - 90 * 24 * 3600 * 1000);
    const db = explainingDatabase(
      tdb.db,
      (s) => deletes.push(s),
      (text) => /DELETE FROM ce_llm_call_log/.test(text) && /ce_conversation/.test(text)
    );
    await pruneConversations(db, cutoff, { batchSize: SMALL_BATCH });
    expect(deletes.length).toBeGreaterThan(1);
    for (const { plan } of deletes) {
      const picked = findNode(plan, (node) => node['Subplan Name'] === 'CTE picked');
      expect(picked?.['Node Type']).toBe('Limit');
      const sort = picked?.Plans?.[0];
      expect(sort?.['Node Type']).toMatch(/^(Incremental )?Sort$/);
      expect(sort?.['Sort Key']?.map((key) => key.replace(/^\w+\./, ''))).toEqual(['c', 'llm_call_id']);
    }
  });
});

describe('the sweep of a gone conversation while an older snapshot keeps its deleted calls', () => {
  /**
   * Eight calls a statement, 50 statements; each old call alone on its table page, among the newer calls of a thousand
   * other conversations (so the planner probes the index for one conversation's calls, as on a real log).
   */
  const SMALL_BATCH = 2;
  const PER_STATEMENT = SMALL_BATCH * 4;
  const OLD_CALLS = 400;
  const SPREAD = 100;
  const gone = 'b0b0b0b0-0000-4000-8000-000000000002';
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await tdb.pool.query(
      `INSERT INTO ce_llm_call_log (conversation_id, call_kind, provider, success, created_at)
       SELECT CASE WHEN i % $2 = 0 THEN $1::uuid ELSE md5('newer' || i % 1000)::uuid END, 'DA', 'test', true,
              CASE WHEN i % $2 = 0 THEN now() - interval '200 days' ELSE now() - interval '10 days' END
         FROM generate_series(1, $2 * $3::int) i`,
      [gone, SPREAD, OLD_CALLS]
    );
    await tdb.pool.query('ANALYZE ce_llm_call_log, ce_conversation');
  }, 120_000);
  afterAll(async () => tdb?.drop());

  /** The scans that find the calls to delete: any of the log but the primary key's probes of the delete. */
  const findsCalls = (node: PlanNode) =>
    node['Index Name'] === 'ce_llm_call_log_conversation_idx' ||
    (node['Relation Name'] === 'ce_llm_call_log' &&
      node['Node Type'] !== 'ModifyTable' &&
      node['Index Name'] !== 'ce_llm_call_log_pkey');

  it('reads about the calls each statement deletes, not again those the statements before it deleted', async () => {
    // A snapshot older than the deletes (pg_dump, a long report) keeps the deleted rows' index entries live: none is
    // marked dead, and a scan that meets one reads its table page to learn it is gone.
    const holder = await tdb.pool.connect();
    const deletes: ExplainedStatement[] = [];
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT 1');
      const cutoff = new Date(Date.now() - 90 * 24 * 3600 * 1000);
      const pruned = await pruneConversations(
        explainingDatabase(
          tdb.db,
          (s) => deletes.push(s),
          (text) => /DELETE FROM ce_llm_call_log/.test(text) && /ce_conversation/.test(text)
        ),
        cutoff,
        { batchSize: SMALL_BATCH }
      );
      expect(pruned).toMatchObject({ llmCalls: OLD_CALLS });
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    expect(deletes.length).toBeGreaterThanOrEqual(OLD_CALLS / PER_STATEMENT);
    // Per statement: the pages of its eight calls and an index page or two. Scanning from the conversation's first
    // entry, the k-th statement also read the pages of the 8 * k calls deleted before it (up to 400).
    const pages = deletes.map((s) => blocksRead(s.plan, findsCalls));
    expect(Math.max(...pages)).toBeLessThanOrEqual(3 * PER_STATEMENT);
  }, 120_000);
});
