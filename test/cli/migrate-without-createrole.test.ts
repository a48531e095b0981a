import { Client } from 'pg';
import { checkDatabase } from '../../cli/doctor/database';
import { runConvengine } from '../support/run-cli';
import { ADMIN_DATABASE_URL, createTestDatabase, type TestDatabase } from '../support/database';

// Each test spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(90_000);

async function asAdmin(sql: string): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/**
 * A database owned by a login without CREATEROLE (a managed PostgreSQL's usual app role): `migrate` cannot create the
 * SQL tools' role, and says so in one line, naming the privilege and the ways out, before changing anything; once a
 * DBA created the role, it migrates without CREATEROLE.
 */
describe('convengine migrate as an owner without CREATEROLE', () => {
  let tdb: TestDatabase;
  let owner: string;
  let url: string;
  beforeAll(async () => {
    tdb = await createTestDatabase({ migrated: false });
    owner = `ce_owner_${tdb.name}`;
    await asAdmin(`CREATE ROLE ${owner} LOGIN PASSWORD 'owner-pw' NOCREATEROLE NOSUPERUSER`);
    await asAdmin(`ALTER DATABASE ${tdb.name} OWNER TO ${owner}`);
    await tdb.pool.query(`ALTER SCHEMA public OWNER TO ${owner}`);
    const u = new URL(tdb.url);
    u.username = owner;
    u.password = 'owner-pw';
    url = u.toString();
  });
  afterAll(async () => {
    await tdb?.drop();
    if (owner) await asAdmin(`DROP ROLE IF EXISTS ${owner}`);
  });

  it('fails in one line naming CREATEROLE and the ways out, having applied nothing; doctor says so too', async () => {
    const run = await runConvengine(['migrate'], { DATABASE_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^migrate failed: the database at .* could not be migrated: the SQL tools' role ${tdb.toolsRole} does not ` +
            `exist and DATABASE_URL's role ${owner} may not create it \\(it has neither CREATEROLE nor SUPERUSER\\): ` +
            `grant it CREATEROLE \\(ALTER ROLE ${owner} CREATEROLE\\), or have a DBA create it .*TOOLS_DATABASE_URL`
        )
      ),
    ]);
    const { rows } = await tdb.pool.query("SELECT to_regclass('ce_schema_migrations') IS NULL AS untouched");
    expect(rows).toEqual([{ untouched: true }]);
    const doctor = await checkDatabase(url);
    expect(doctor).toMatchObject({ level: 'fail' });
    expect(doctor.message).toMatch(/^no migration applied: run `convengine migrate`, which will fail: .*CREATEROLE/);
  });

  it('migrates without CREATEROLE once a DBA created the role', async () => {
    await asAdmin(`CREATE ROLE ${tdb.toolsRole} LOGIN NOINHERIT PASSWORD 'tools-pw'`);
    const tools = new URL(url);
    tools.username = tdb.toolsRole;
    tools.password = 'tools-pw';
    const run = await runConvengine(['migrate'], { DATABASE_URL: url, TOOLS_DATABASE_URL: tools.toString() });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/migration\(s\) applied, 0 already applied/);
  });
});
