/**
 * A conversation another transaction holds locked when the prune reaches it (a turn writing its rows or committing)
 * is passed over, not waited for. It was left to the next run without a word: the summary said nothing of it, and a
 * lock released a moment later still kept it. It is now tried once more at the end of the run, and one still held is
 * counted in `skippedBusy` and named on the summary line.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { pruneConversations } from '../../db/repositories/retention';
import { runConvengine } from '../support/run-cli';
import { createTestDatabase, type TestDatabase } from '../support/database';

const DAY = 24 * 60 * 60 * 1000;

describe('conversations prune and a conversation locked by another transaction', () => {
  let tdb: TestDatabase;
  let holder: Client;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb?.drop());
  beforeEach(async () => {
    await tdb.pool.query('TRUNCATE ce_conversation, ce_llm_call_log, ce_turn_request, ce_retired_conversation CASCADE');
    holder = new Client({ connectionString: tdb.url });
    await holder.connect();
  });
  afterEach(async () => holder.end());

  /** An idle conversation `days` old; `turnInFlight` gives it the first row of a turn that has not committed. */
  async function conversation(days: number, turnInFlight = false): Promise<string> {
    const id = randomUUID();
    await tdb.pool.query(
      `INSERT INTO ce_conversation (conversation_id, turn_count, created_at, updated_at) VALUES ($1, 1, $2, $2)`,
      [id, new Date(Date.now() - days * DAY)]
    );
    if (turnInFlight) {
      await tdb.pool.query(
        `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, created_at)
         VALUES ($1, 2, 'USER_INPUT', '{}', $2, $3)`,
        [id, `${id}/2/0`, new Date(Date.now() - days * DAY)]
      );
    }
    return id;
  }

  /** A turn's transaction: it holds the conversation's row (the audit rows it inserts take FOR KEY SHARE on it). */
  async function hold(id: string): Promise<void> {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM ce_conversation WHERE conversation_id = $1 FOR KEY SHARE', [id]);
  }

  const left = async () =>
    (await tdb.pool.query<{ conversation_id: string }>('SELECT conversation_id FROM ce_conversation')).rows.map(
      (r) => r.conversation_id
    );

  it('says how many it skipped because they were held, on the result and on the summary line (exit 0)', async () => {
    const busy = await conversation(200);
    await conversation(150);
    await hold(busy);

    const dry = await pruneConversations(tdb.db, new Date(Date.now() - 90 * DAY), { dryRun: true, batchSize: 1 });
    expect(dry).toMatchObject({ conversations: 2, skippedBusy: 0 }); // a dry run locks nothing
    const pruned = await pruneConversations(tdb.db, new Date(Date.now() - 90 * DAY), { batchSize: 1 });
    expect(pruned).toMatchObject({ conversations: 1, skippedBusy: 1, skippedInFlight: 0 });
    expect(await left()).toEqual([busy]);

    const run = await runConvengine(['conversations', 'prune', '--older-than', '90d'], { DATABASE_URL: tdb.url });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^pruned 0 conversation\(s\), .*; skipped 1 conversation\(s\) busy \(locked by another transaction, twice\): run again to prune them\n$/
    );
    await holder.query('ROLLBACK');
    const again = await runConvengine(['conversations', 'prune', '--older-than', '90d'], { DATABASE_URL: tdb.url });
    expect([again.code, again.stdout]).toEqual([0, expect.stringMatching(/^pruned 1 conversation\(s\), [^;]*\n$/)]);
    expect(await left()).toEqual([]);
  }, 120_000);

  it('prunes one whose lock is released before the end of the run', async () => {
    const busy = await conversation(200);
    const inFlight = await conversation(150, true);
    await hold(busy);
    // Temporal is asked about the turn in flight after the walk passed the held conversation: the lock goes then.
    const turnEnds = async () => {
      await holder.query('ROLLBACK');
      return null;
    };
    const pruned = await pruneConversations(tdb.db, new Date(Date.now() - 90 * DAY), { batchSize: 1, turnEnds });
    expect(pruned).toMatchObject({ conversations: 1, skippedBusy: 0, skippedInFlight: 1 });
    expect(await left()).toEqual([inFlight]);
  });

  it('counts the ones held when a stopped run did not try them again, and the next run prunes them', async () => {
    const busy = await conversation(200);
    await conversation(150);
    await hold(busy);
    const stop = new AbortController();
    // Stopped after the walk's first batch, which found the held conversation: it is not tried again.
    const onBatch = () => stop.abort();
    const cutoff = new Date(Date.now() - 90 * DAY);
    const stoppedRun = await pruneConversations(tdb.db, cutoff, { batchSize: 1, onBatch, stop: stop.signal });
    expect(stoppedRun).toMatchObject({ interrupted: true, conversations: 0, skippedBusy: 1 });

    await holder.query('ROLLBACK');
    expect(await pruneConversations(tdb.db, cutoff, { batchSize: 1 })).toMatchObject({ conversations: 2 });
    expect(await left()).toEqual([]);
  });
});
