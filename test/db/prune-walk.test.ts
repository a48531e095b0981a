/**
 * `conversations prune` (db/repositories/retention.ts) walks the idle conversations in (updated_at, conversation_id)
 * order and checks only a batch's worth at a time: each batch reads about its own size, however many conversations
 * are idle. It picked the oldest prunable ones anew each batch, reading and checking every idle conversation every
 * time (S42: 2.7 s a batch with 54,000 idle).
 */
import type { PoolClient, QueryResult } from 'pg';
import type { Database } from '../../db/pool';
import { pruneConversations } from '../../db/repositories/retention';
import { createTestDatabase, type TestDatabase } from '../support/database';

const IDLE = 3_000;
const BATCH = 100;

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** The table rows a plan's scans read: those they returned and those their filters removed, over every loop. */
function rowsRead(node: PlanNode): number {
  const own = node['Relation Name']
    ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops']
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

/**
 * `db` whose transactions explain (ANALYZE) each batch's pick, the statement that locks its conversations (FOR
 * UPDATE SKIP LOCKED, in the code before and after), before running it; `reads` gets the rows each read.
 */
function explainingPicks(db: Database, reads: number[]): Database {
  const pool = db.$client;
  const connect = async (): Promise<PoolClient> => {
    const client = await pool.connect();
    const query = async (text: unknown, values?: unknown[]): Promise<QueryResult> => {
      if (typeof text === 'string' && /FOR UPDATE( OF c)? SKIP LOCKED/.test(text)) {
        const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
          values
        );
        reads.push(rowsRead((rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan));
      }
      return client.query(text as string, values);
    };
    return new Proxy(client, { get: (target, prop) => (prop === 'query' ? query : bindOf(target, prop)) });
  };
  const wrapped = new Proxy(pool, { get: (target, prop) => (prop === 'connect' ? connect : bindOf(target, prop)) });
  return Object.assign(Object.create(db) as Database, { $client: wrapped });
}

function bindOf(target: object, prop: string | symbol): unknown {
  const value = Reflect.get(target, prop) as unknown;
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}

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
    await tdb.pool.query('ANALYZE ce_conversation, ce_audit, ce_turn_request');
  }, 120_000);
  afterAll(async () => tdb?.drop());

  it('reads about a batch of conversations per batch, and deletes what the dry run counted', async () => {
    const cutoff = new Date(Date.now() - 90 * 24 * 3600 * 1000);
    const dry = await pruneConversations(tdb.db, cutoff, { dryRun: true });
    expect(dry.conversations).toBe(IDLE);

    const reads: number[] = [];
    const pruned = await pruneConversations(explainingPicks(tdb.db, reads), cutoff, { batchSize: BATCH });
    expect(pruned).toEqual(dry);
    expect(reads.length).toBeGreaterThanOrEqual(IDLE / BATCH);
    // Candidates, their rows, their audit trails' newest rows, their turn requests: a few rows per conversation.
    expect(Math.max(...reads)).toBeLessThanOrEqual(8 * BATCH);
    const left = await tdb.pool.query('SELECT count(*)::int AS n FROM ce_conversation');
    expect(left.rows).toEqual([{ n: 0 }]);
  }, 120_000);
});
