/**
 * `conversations prune` sweeps the LLM call log rows older than its cutoff that belong to no conversation
 * (db/repositories/prune-orphan-calls.ts) by walking the log once in llm_call_id order. It picked them anew each
 * batch, reading the table again from its start every time: every row the batches before had kept (old calls of
 * conversations still in use), once per batch, and the whole table once more to find that none was left.
 */
import { pruneConversations } from '../../db/repositories/retention';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { explainingDatabase, rowsRead, type ExplainedStatement } from '../support/explained-reads';

/** Old calls of conversations still in use, kept; then orphans; then newer calls, which the sweep must not read. */
const KEPT = 2_000;
const ORPHANS = 1_000;
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

  it('reads each row older than the cutoff once, and no newer one past a span of them', async () => {
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
    // Each old row once (deleting one reads it twice more: the key's probe and the delete), and a span of newer ones.
    for (const statements of [dryReads, reads]) {
      expect(readOf(statements)).toBeLessThanOrEqual(KEPT + 3 * ORPHANS + 10 * BATCH);
    }
  }, 120_000);
});
