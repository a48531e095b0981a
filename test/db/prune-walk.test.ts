/**
 * `conversations prune` (db/repositories/retention.ts) walks the idle conversations in (updated_at, conversation_id)
 * order and checks only a batch's worth at a time: each statement reads about a batch's size, however many
 * conversations are idle. It picked the oldest prunable ones anew each batch, reading and checking every idle
 * conversation every time (S42: 2.7 s a batch with 54,000 idle); and once a run it read every idle conversation
 * three more times: to find the turns to ask Temporal about, to count those it skipped, and to count in a dry run.
 */
import { pruneConversations } from '../../db/repositories/retention';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { explainingDatabase, rowsRead, type ExplainedStatement } from '../support/explained-reads';

const IDLE = 3_000;
const BATCH = 100;
/** Idle conversations a turn in flight keeps, spread over the walk; Temporal says every third has ended. */
const IN_FLIGHT = 30;

describe('conversations prune on thousands of idle conversations', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    // In statements of 1,500: the retired-id trigger takes an advisory lock per row (max_locks_per_transaction).
    // Seven at a time share an updated_at, so batches end inside such a run: the cursor's conversation_id decides.
    for (let from = 1; from <= IDLE; from += 1_500) {
      await tdb.pool.query(
        `INSERT INTO ce_conversation (conversation_id, turn_count, created_at, updated_at)
         SELECT gen_random_uuid(), 1, now() - interval '200 days', now() - interval '200 days' + (i / 7) * interval '1 second'
           FROM generate_series($1::int, $1::int + 1499) i`,
        [from]
      );
    }
    await tdb.pool.query(
      `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, created_at)
       SELECT conversation_id, 1, stage, '{}', conversation_id || '/1/' || stage, updated_at
         FROM ce_conversation CROSS JOIN unnest(ARRAY['USER_INPUT', 'ASSISTANT_OUTPUT']) stage`
    );
    await tdb.pool.query(
      `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, created_at)
       SELECT conversation_id, 2, 'USER_INPUT', '{}', conversation_id || '/2', updated_at
         FROM (SELECT conversation_id, updated_at, row_number() OVER (ORDER BY updated_at, conversation_id) n
                 FROM ce_conversation) c WHERE n % ($1::int / $2::int) = 0`,
      [IDLE, IN_FLIGHT]
    );
    await tdb.pool.query('ANALYZE ce_conversation, ce_audit, ce_turn_request');
  }, 120_000);
  afterAll(async () => tdb?.drop());

  it('reads about a batch of conversations per statement, dry or not, and deletes what the dry run counted', async () => {
    const cutoff = new Date(Date.now() - 90 * 24 * 3600 * 1000);
    const asked: string[] = [];
    // Temporal says every third turn in flight has ended (terminated): its conversation goes.
    const turnEnds = async (conversationId: string, turn: number) => {
      asked.push(`${conversationId}/${turn}`);
      return asked.length % 3 === 0 ? { status: 'TERMINATED' } : null;
    };
    const expected = { conversations: IDLE - IN_FLIGHT + IN_FLIGHT / 3, skippedInFlight: (IN_FLIGHT * 2) / 3 };

    const dryReads: ExplainedStatement[] = [];
    const dry = await pruneConversations(
      explainingDatabase(tdb.db, (s) => dryReads.push(s)),
      cutoff,
      {
        dryRun: true,
        batchSize: BATCH,
        turnEnds,
      }
    );
    expect(dry).toMatchObject(expected);
    expect(asked).toHaveLength(IN_FLIGHT);

    asked.length = 0;
    const reads: ExplainedStatement[] = [];
    const pruned = await pruneConversations(
      explainingDatabase(tdb.db, (s) => reads.push(s)),
      cutoff,
      {
        batchSize: BATCH,
        turnEnds,
      }
    );
    expect(pruned).toEqual(dry);
    expect(asked).toHaveLength(IN_FLIGHT);
    // Candidates and the few rows each one's check probes: never every idle conversation, as a count once a run did.
    // The batch's delete is left out: on 3,000 rows the planner hashes the table (with 100,000 it probes the key).
    const heaviest = (statements: ExplainedStatement[]) =>
      Math.max(
        ...statements
          .filter((s) => !s.text.includes('DELETE FROM ce_conversation'))
          .map((s) => rowsRead(s.plan, 'ce_conversation'))
      );
    expect(heaviest(dryReads)).toBeLessThanOrEqual(2 * BATCH);
    expect(heaviest(reads)).toBeLessThanOrEqual(2 * BATCH);
    // All of them: candidates, their rows, their audit trails' newest rows, their turn requests.
    const picks = reads.filter((s) => /FOR UPDATE OF c SKIP LOCKED/.test(s.text));
    expect(picks.length).toBeGreaterThanOrEqual(IDLE / BATCH);
    expect(Math.max(...picks.map((s) => rowsRead(s.plan)))).toBeLessThanOrEqual(8 * BATCH);
    const left = await tdb.pool.query('SELECT count(*)::int AS n FROM ce_conversation');
    expect(left.rows).toEqual([{ n: expected.skippedInFlight }]);
  }, 300_000);
});
