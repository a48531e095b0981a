import { Client } from 'pg';
import { MIGRATION_LOCK_KEY } from '../../db/migration-lock';
import { eventually } from '../devserver/harness';
import { runConvengine } from '../support/run-cli';
import { createTestDatabase, type TestDatabase } from '../support/database';

// Spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(90_000);

/**
 * A maintenance session the server ends between statements (pg_terminate_backend, an idle_session_timeout): the
 * CLI's one-line error gives the server's reason, which pg only emits as an 'error' event on the client, not pg's
 * "Connection terminated unexpectedly" alone.
 */
describe('convengine migrate whose session the server ends', () => {
  let tdb: TestDatabase;
  let holder: Client;
  beforeAll(async () => {
    tdb = await createTestDatabase({ migrated: false });
    holder = new Client({ connectionString: tdb.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    await tdb?.drop();
  });

  it("says the server's reason for ending it", async () => {
    // migrate polls for the lock, idle between tries: the server ends its session there.
    await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const running = runConvengine(['migrate'], { DATABASE_URL: tdb.url });
    const migrator = async (): Promise<number | undefined> => {
      const { rows } = await holder.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND query LIKE '%pg_try_advisory_lock%'`
      );
      return rows[0]?.pid;
    };
    let pid: number | undefined;
    await eventually(async () => expect((pid = await migrator())).toEqual(expect.any(Number)), 60_000);
    await holder.query('SELECT pg_terminate_backend($1)', [pid]);
    const run = await running;
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^migrate failed: .*terminating connection due to administrator command/),
    ]);
  });
});
