/**
 * `conversations prune` deletes a batch's conversations (up to its batch size, 500 by default) with everything that
 * names them. It did so in one statement, whose foreign keys' cascade took every audit and history row of them: a few
 * conversations with long audit trails made one statement delete millions of rows. Their rows now go a bounded span
 * at a time (db/repositories/prune-drain.ts), at most four rows per conversation of a batch each statement, in the
 * batch's transaction: a prune that dies midway leaves its conversations whole, and the next run prunes them.
 */
import { randomUUID } from 'node:crypto';
import type { PoolClient, QueryResult } from 'pg';
import type { Database } from '../../db/pool';
import { pruneConversations } from '../../db/repositories/retention';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { bindOf } from '../support/explained-reads';

const DAY = 24 * 60 * 60 * 1000;
/** Two conversations a batch: no statement deletes more than 2 * 4 rows. */
const BATCH = 2;
const PER_STATEMENT = BATCH * 4;

/** Rows of each kind a long conversation has. */
const LONG = { audit: 60, history: 20, calls: 25, requests: 11 };

/** The rows a statement of the prune deleted, from what it answers: a span's `deleted`, the batch's counts. */
function rowsDeleted(row: Record<string, unknown> | undefined): number {
  if (!row) return 0;
  if ('deleted' in row) return Number(row.deleted);
  const counted = ['conversations', 'audit_rows', 'history_rows', 'llm_calls', 'turn_requests', 'claims'];
  return counted.reduce((sum, column) => sum + (column in row ? Number(row[column]) : 0), 0);
}

/** `db`, telling `seen` each statement a batch's transaction runs and its result, before the next one runs. */
function watchedDatabase(db: Database, seen: (text: string, result: QueryResult, client: PoolClient) => Promise<void>) {
  const pool = db.$client;
  const connect = async (): Promise<PoolClient> => {
    const client = await pool.connect();
    const query = async (text: string, values?: unknown[]) => {
      const result = await client.query(text, values);
      await seen(text, result, client);
      return result;
    };
    return new Proxy(client, { get: (target, prop) => (prop === 'query' ? query : bindOf(target, prop)) });
  };
  const wrapped = new Proxy(pool, { get: (target, prop) => (prop === 'connect' ? connect : bindOf(target, prop)) });
  return Object.assign(Object.create(db) as Database, { $client: wrapped });
}

describe('conversations prune of conversations with long audit trails', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb?.drop());
  beforeEach(async () => {
    await tdb.pool.query('TRUNCATE ce_conversation, ce_llm_call_log, ce_turn_request, ce_retired_conversation CASCADE');
  });

  /** A conversation idle for `days` with 20 committed turns and LONG's rows; `inFlight`: its last row is turn 21's. */
  async function conversation(days: number, options: { inFlight?: boolean } = {}): Promise<string> {
    const id = randomUUID();
    const at = new Date(Date.now() - days * DAY);
    const q = (sql: string, ...params: unknown[]) => tdb.pool.query(sql, [id, at, ...params]);
    await q(
      `INSERT INTO ce_conversation (conversation_id, turn_count, created_at, updated_at) VALUES ($1, $3, $2, $2)`,
      20
    );
    // The last audit rows are of turn 20, committed; or of turn 21, which has not committed: in flight.
    await q(
      `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, created_at)
       SELECT $1::uuid, CASE WHEN i = $3::int - 1 THEN $4::int ELSE i / 3 + 1 END, 'STEP', '{}', $1::text || '/' || i, $2 FROM generate_series(0, $3::int - 1) i`,
      LONG.audit,
      options.inFlight ? 21 : 20
    );
    await q(
      `INSERT INTO ce_conversation_history (conversation_id, turn_number, created_at)
       SELECT $1, i, $2 FROM generate_series(1, $3::int) i`,
      LONG.history
    );
    await q(
      `INSERT INTO ce_llm_call_log (conversation_id, call_kind, provider, success, created_at)
       SELECT $1, 'DA', 'test', true, $2 FROM generate_series(1, $3::int) i`,
      LONG.calls
    );
    await q(
      `INSERT INTO ce_turn_request (conversation_id, idempotency_key, turn_number, workflow_id, created_at)
       SELECT $1::uuid, $1::text || '/key-' || i, i, 'turn-' || $1::text || '-' || i, $2 FROM generate_series(1, $3::int) i`,
      LONG.requests
    );
    return id;
  }

  /** Each kind of row naming `id`, counted. */
  async function rowsOf(id: string) {
    const { rows } = await tdb.pool.query(
      `SELECT (SELECT count(*) FROM ce_conversation WHERE conversation_id = $1)::int AS conversation,
              (SELECT count(*) FROM ce_audit WHERE conversation_id = $1)::int AS audit,
              (SELECT count(*) FROM ce_conversation_history WHERE conversation_id = $1)::int AS history,
              (SELECT count(*) FROM ce_llm_call_log WHERE conversation_id = $1)::int AS calls,
              (SELECT count(*) FROM ce_turn_request WHERE conversation_id = $1)::int AS requests,
              (SELECT count(*) FROM ce_retired_conversation
                WHERE conversation_digest = encode(sha256(convert_to($1::text, 'UTF8')), 'hex'))::int AS retired`,
      [id]
    );
    return rows[0] as Record<string, number>;
  }
  const whole = { conversation: 1, ...LONG, retired: 0 };
  const gone = { conversation: 0, audit: 0, history: 0, calls: 0, requests: 0, retired: 1 };
  const cutoff = () => new Date(Date.now() - 90 * DAY);

  it('deletes at most four rows per conversation of a batch a statement, and what the dry run counted', async () => {
    const long = [await conversation(300), await conversation(200), await conversation(150)];
    const kept = await conversation(250, { inFlight: true });
    const dry = await pruneConversations(tdb.db, cutoff(), { dryRun: true, batchSize: BATCH });
    const expected = { conversations: 3, auditRows: 3 * LONG.audit, historyRows: 3 * LONG.history };
    expect(dry).toMatchObject({ ...expected, llmCalls: 3 * LONG.calls, turnRequests: 3 * LONG.requests });
    expect(dry).toMatchObject({ skippedInFlight: 1 });

    const deleted: number[] = [];
    const watched = watchedDatabase(tdb.db, async (_text, result) => {
      deleted.push(rowsDeleted(result.rows[0] as Record<string, unknown> | undefined));
    });
    const pruned = await pruneConversations(watched, cutoff(), { batchSize: BATCH });
    expect(pruned).toEqual(dry);
    expect(Math.max(...deleted)).toBeLessThanOrEqual(PER_STATEMENT);
    // Every row, in as many statements as its bound takes (each drain ends on a statement that finds fewer).
    const rows = 3 * (LONG.audit + LONG.history + LONG.calls + LONG.requests);
    expect(deleted.filter((n) => n > 0).length).toBeGreaterThanOrEqual(rows / PER_STATEMENT);
    for (const id of long) expect(await rowsOf(id)).toEqual(gone);
    // Its turn in flight keeps it, with every row: the check under the row's lock still decides what is drained.
    expect(await rowsOf(kept)).toEqual(whole);
  });

  it('dies midway through a conversation: the conversation is left whole, and the next run prunes it', async () => {
    const id = await conversation(200);
    let spans = 0;
    const dying = watchedDatabase(tdb.db, async (text, _result, client) => {
      if (!/DELETE FROM ce_audit/.test(text) || ++spans < 3) return;
      // The process's connection ends after three of the audit trail's spans have gone: the server rolls back.
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await tdb.pool.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
    });
    await expect(pruneConversations(dying, cutoff(), { batchSize: BATCH })).rejects.toThrow();
    expect(spans).toBe(3);
    expect(await rowsOf(id)).toEqual(whole);

    const again = await pruneConversations(tdb.db, cutoff(), { batchSize: BATCH });
    expect(again).toMatchObject({ conversations: 1, auditRows: LONG.audit, historyRows: LONG.history });
    expect(again).toMatchObject({ llmCalls: LONG.calls, turnRequests: LONG.requests });
    expect(await rowsOf(id)).toEqual(gone);
  });

  it('keeps a conversation whose user comes back while its rows drain, and prunes the rest of its batch', async () => {
    const returning = await conversation(300);
    const other = await conversation(200);
    let spans = 0;
    const watched = watchedDatabase(tdb.db, async (text) => {
      if (!/DELETE FROM ce_audit/.test(text) || ++spans !== 1) return;
      // The gateway's first write for a new turn, from its own connection: no lock of the batch's holds it back.
      await tdb.pool.query(
        `INSERT INTO ce_turn_request (conversation_id, idempotency_key, turn_number, workflow_id)
         VALUES ($1::uuid, $1::text || '/back', 21, 'turn-' || $1::text || '-21')`,
        [returning]
      );
    });
    const pruned = await pruneConversations(watched, cutoff(), { batchSize: BATCH });
    expect(spans).toBeGreaterThan(1);
    expect(await rowsOf(returning)).toEqual({ ...whole, requests: LONG.requests + 1 });
    expect(await rowsOf(other)).toEqual(gone);
    expect(pruned).toMatchObject({ conversations: 1, auditRows: LONG.audit, turnRequests: LONG.requests });
    expect(pruned).toMatchObject({ skippedBusy: 0, skippedInFlight: 0 });
  });
});
