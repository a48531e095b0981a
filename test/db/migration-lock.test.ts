import { Client } from 'pg';
import { migrate, MIGRATIONS_DIR } from '../../db/migrate';
import { MIGRATION_LOCK_KEY, MigrationLockTimeoutError, withMigrationLock } from '../../db/migration-lock';
import { openDatabase } from '../../db/pool';
import { createTestDatabase, type TestDatabase } from '../support/database';

/** `migrate`'s lock (db/migration-lock.ts): a wait says who holds it and is bounded; its unlock is checked. */
describe('the migration lock', () => {
  let tdb: TestDatabase;
  const others: Client[] = [];
  beforeEach(async () => {
    tdb = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(others.splice(0).map((c) => c.end()));
    await tdb.drop();
  });

  async function session(applicationName: string): Promise<Client> {
    const client = new Client({ connectionString: tdb.url, application_name: applicationName });
    await client.connect();
    others.push(client);
    return client;
  }

  it('a migrator waiting for it says who holds it, then gives up with a clear error', async () => {
    const holder = await session('stuck-migrator');
    const locked = await holder.query<{ pid: number }>('SELECT pg_advisory_lock($1), pg_backend_pid() AS pid', [
      MIGRATION_LOCK_KEY,
    ]);
    const pid = locked.rows[0]?.pid;
    const lines: string[] = [];
    const lockWait = { timeoutMs: 1_500, reportAfterMs: 300, reportEveryMs: 60_000, log: (l: string) => lines.push(l) };
    const failure = await migrate(tdb.pool, MIGRATIONS_DIR, { lockWait }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(MigrationLockTimeoutError);
    const holderText = new RegExp(
      `for the migration lock \\(advisory lock ${MIGRATION_LOCK_KEY} on this database\\), held by pid ${pid} ` +
        `\\(application_name "stuck-migrator" from [^,]+, connected \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC, idle since `
    );
    expect((failure as Error).message).toMatch(/^gave up after \d+ s \(MIGRATE_LOCK_WAIT_MS\) /);
    expect((failure as Error).message).toMatch(holderText);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^migrate: waited \d+ s /);
    expect(lines[0]).toMatch(holderText);
  });

  it('is released at the end: the next migrator takes it at once, on the same pooled connection', async () => {
    const handle = openDatabase(tdb.url, { max: 1 });
    try {
      await migrate(handle.pool);
      expect(handle.pool.idleCount).toBe(1);
      const other = await session('next-migrator');
      const { rows } = await other.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK_KEY]);
      expect(rows).toEqual([{ locked: true }]);
    } finally {
      await handle.close();
    }
  });

  it('an unlock the session did not hold fails the migration, and that connection is not pooled again', async () => {
    const handle = openDatabase(tdb.url, { max: 1 });
    try {
      const unheld = await withMigrationLock(handle.pool, {}, async (client) => {
        // As when the unlock reaches another server session than the lock did (a transaction-mode pooler).
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      }).catch((err: unknown) => err);
      expect((unheld as Error).message).toMatch(/^the migration lock was not held by this session at the end/);
      expect(handle.pool.totalCount).toBe(0);
    } finally {
      await handle.close();
    }
  });
});
