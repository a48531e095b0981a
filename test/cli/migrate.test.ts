import { readMigrations } from '../../db/migrate';
import { runConvengine } from '../support/run-cli';
import { createTestDatabase, type TestDatabase } from '../support/database';

// Each test spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(60_000);

describe('convengine migrate', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('applies every migration, then reports them as already applied', async () => {
    const count = readMigrations().length;
    const first = await runConvengine(['migrate'], { DATABASE_URL: tdb.url });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain(`${count} migration(s) applied, 0 already applied`);
    expect(first.stdout).toContain('applied 0001_config_tables.sql');
    const second = await runConvengine(['migrate'], { DATABASE_URL: tdb.url });
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe(`0 migration(s) applied, ${count} already applied`);
  });

  it('warns, without failing, on a database a newer build migrated (a migration this build does not know)', async () => {
    await tdb.pool.query("INSERT INTO ce_schema_migrations (name, checksum) VALUES ('0020_future.sql', 'x')");
    try {
      const run = await runConvengine(['migrate'], { DATABASE_URL: tdb.url });
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(
        /^warning: the database has 1 migration\(s\) this build does not know \(0020_future\.sql\): a newer build migrated it\./
      );
    } finally {
      await tdb.pool.query("DELETE FROM ce_schema_migrations WHERE name = '0020_future.sql'");
    }
  });

  it('exits 2 with a clear message when DATABASE_URL is missing', async () => {
    const run = await runConvengine(['migrate'], { DATABASE_URL: '' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/DATABASE_URL: is not set/);
  });

  it('prints usage for --help', async () => {
    const run = await runConvengine(['migrate', '--help'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: convengine migrate/);
  });
});
