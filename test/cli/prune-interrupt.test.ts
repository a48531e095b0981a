/**
 * `convengine conversations prune` says how far it got as it runs, and SIGINT or SIGTERM stops it after the batch in
 * progress: it prints what it pruned and exits 128 + the signal's number, leaving every conversation either gone
 * with all its rows or whole. It printed nothing until its last line, and a Ctrl-C ended it with empty output,
 * though it had pruned 1,500 conversations (S42 D3).
 */
import type { PoolClient } from 'pg';
import { startConvengine, runConvengine } from '../support/run-cli';
import { createTestDatabase, type TestDatabase } from '../support/database';

const IDLE = 1_200; // the command's batches are of 500: three of them
const PRUNE = ['conversations', 'prune', '--older-than', '90d'];

describe('convengine conversations prune interrupted', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb?.drop());
  beforeEach(async () => {
    await tdb.pool.query('TRUNCATE ce_conversation, ce_retired_conversation CASCADE');
    await tdb.pool.query(
      `INSERT INTO ce_conversation (conversation_id, turn_count, created_at, updated_at)
       SELECT gen_random_uuid(), 2, now() - interval '200 days', now() - interval '200 days' + i * interval '1 second'
         FROM generate_series(1, ${IDLE}) i`
    );
    await tdb.pool.query(
      `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, created_at)
       SELECT conversation_id, t, 'USER_INPUT', '{}', conversation_id || '/' || t, updated_at
         FROM ce_conversation CROSS JOIN generate_series(1, 2) t`
    );
    await tdb.pool.query(
      `INSERT INTO ce_conversation_history (conversation_id, turn_number, created_at)
       SELECT conversation_id, t, updated_at FROM ce_conversation CROSS JOIN generate_series(1, 2) t`
    );
  });

  const count = async (sql: string) => (await tdb.pool.query<{ n: number }>(sql)).rows[0]?.n;

  /** Polls until `ready` holds (a lock waited on, a line printed). */
  async function until(ready: () => Promise<boolean> | boolean, what: string): Promise<void> {
    for (let waited = 0; !(await ready()); waited += 50) {
      if (waited > 30_000) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s in the first batch stops it after that batch: exit %d, its totals printed', async (signal, exit) => {
    // The first batch's delete waits on this lock (it records the pruned ids) until the signal has been taken.
    const blocker: PoolClient = await tdb.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE ce_retired_conversation IN SHARE MODE');
      const run = startConvengine(PRUNE, { DATABASE_URL: tdb.url });
      const waiting = `SELECT count(*)::int AS n FROM pg_locks
                        WHERE NOT granted AND relation = 'ce_retired_conversation'::regclass`;
      await until(async () => (await count(waiting)) === 1, 'the first batch to wait on the lock');
      run.kill(signal);
      await until(() => run.stderr().includes('stopping after the batch in progress'), 'the signal to be taken');
      await blocker.query('COMMIT');

      const { code, stdout, stderr } = await run.done;
      expect(code).toBe(exit);
      expect(stderr).toContain(
        `conversations prune: ${signal}: stopping after the batch in progress (again to stop at once; it is rolled back)`
      );
      expect(stderr).toMatch(/conversations prune: 500 conversation\(s\) examined, pruned 500 conversation\(s\)/);
      expect(stdout).toMatch(
        /^interrupted after pruning 500 conversation\(s\), 1000 audit row\(s\), 1000 history row\(s\), .*, idle since before \S+; run again to continue\n$/
      );
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      blocker.release();
    }

    // Nothing half deleted: the 500 went with all their rows and are retired; the rest are whole.
    expect(await count('SELECT count(*)::int AS n FROM ce_retired_conversation')).toBe(500);
    expect(await count('SELECT count(*)::int AS n FROM ce_conversation')).toBe(IDLE - 500);
    expect(await count('SELECT count(*)::int AS n FROM ce_audit')).toBe(2 * (IDLE - 500));
    expect(await count('SELECT count(*)::int AS n FROM ce_conversation_history')).toBe(2 * (IDLE - 500));

    const again = await runConvengine(PRUNE, { DATABASE_URL: tdb.url });
    expect(again).toMatchObject({ code: 0, stdout: expect.stringMatching(/^pruned 700 conversation\(s\)/) });
    expect(await count('SELECT count(*)::int AS n FROM ce_conversation')).toBe(0);
  });
});
