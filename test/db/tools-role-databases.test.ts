import { Client } from 'pg';
import { migrate } from '../../db/migrate';
import { LEGACY_TOOLS_ROLE, toolsDatabaseUrl, ToolsRoleError, toolsRoleOf } from '../../db/tools-role';
import { checkToolsLogin } from '../../observability/tools-login';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * Two deployments on one PostgreSQL server (S35): each database's SQL tools log in as a role of that database's own
 * (roles are the cluster's), which reads that database and no other; `migrate` refuses to take over another
 * database's role, moves a database off the role older builds shared, and never loosens a DBA's stricter limit.
 * The databases and their roles are this run's own (createTestDatabase names them), so parallel runs never meet.
 */
describe('the SQL tools role of two databases on one server', () => {
  let a: TestDatabase;
  let b: TestDatabase;
  beforeAll(async () => {
    [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    for (const db of [a, b]) {
      await db.pool.query(`CREATE TABLE business.accounts (id int PRIMARY KEY, owner text NOT NULL);
        INSERT INTO business.accounts VALUES (1, '${db.name}')`);
    }
  });
  afterAll(async () => {
    await Promise.all([a?.drop(), b?.drop()]);
  });

  /** Logs in as `url`'s role and reads business.accounts, or says why it could not. */
  const readAccounts = async (url: string): Promise<string> => {
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      const { rows } = await client.query<{ owner: string }>('SELECT owner FROM business.accounts');
      return rows.map((r) => r.owner).join();
    } catch (err) {
      return (err as Error).message;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  /** `from`'s tools login, pointed at database `to`. */
  const toolsLoginAt = (from: TestDatabase, to: TestDatabase) => {
    const url = new URL(toolsDatabaseUrl(from.url));
    url.pathname = `/${to.name}`;
    return url.toString();
  };

  it("gives each database a role of its own, which reads that database's business data and not the other's", async () => {
    expect(a.toolsRole).toBe(`convengine_tools_ro_${a.name}`);
    expect(new URL(toolsDatabaseUrl(a.url)).username).toBe(a.toolsRole);
    expect(b.toolsRole).not.toBe(a.toolsRole);
    expect(await readAccounts(toolsDatabaseUrl(a.url))).toBe(a.name);
    expect(await readAccounts(toolsDatabaseUrl(b.url))).toBe(b.name);
    expect(await readAccounts(toolsLoginAt(a, b))).toMatch(/permission denied for (schema business|table accounts)/);
    // With CONNECT taken from PUBLIC (docs/security.md, section 4), the explicit grant keeps a's tools working.
    await b.pool.query(`REVOKE CONNECT ON DATABASE ${b.name} FROM PUBLIC`);
    await a.pool.query(`REVOKE CONNECT ON DATABASE ${a.name} FROM PUBLIC`);
    expect(await readAccounts(toolsDatabaseUrl(a.url))).toBe(a.name);
    expect(await readAccounts(toolsLoginAt(a, b))).toMatch(/permission denied for database/);
  });

  it("refuses to take over another database's role, naming it, and leaves that role as it was", async () => {
    const grantsOfA = () =>
      b.pool.query("SELECT has_schema_privilege($1::name, 'business', 'USAGE') AS usage", [a.toolsRole]);
    const other = new URL(b.url);
    other.username = a.toolsRole;
    const refused = await migrate(b.pool, undefined, { toolsDatabaseUrl: other.toString() }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ToolsRoleError);
    expect((refused as Error).message).toMatch(
      new RegExp(
        `^the SQL tools' role ${a.toolsRole} holds privileges in database "${a.name}" too: .*TOOLS_DATABASE_URL`
      )
    );
    expect((await grantsOfA()).rows).toEqual([{ usage: false }]);
    expect(await readAccounts(toolsDatabaseUrl(a.url))).toBe(a.name);
    // Its own role again: nothing changed for it.
    await expect(migrate(b.pool)).resolves.toMatchObject({ toolsRole: { role: b.toolsRole, notes: [] } });
  });

  it('keeps a stricter statement_timeout a DBA set on the role and says so; a looser one goes back to 60s', async () => {
    const timeoutOf = async (db: TestDatabase) => {
      const { rows } = await db.pool.query<{ config: string[] }>(
        'SELECT rolconfig AS config FROM pg_roles WHERE rolname = $1',
        [db.toolsRole]
      );
      return rows[0]?.config.find((s) => s.startsWith('statement_timeout='));
    };
    await a.pool.query(`ALTER ROLE ${a.toolsRole} SET statement_timeout = '10s'`);
    const report = await migrate(a.pool);
    expect(await timeoutOf(a)).toBe('statement_timeout=10s');
    expect(report.toolsRole.notes).toEqual([
      `kept statement_timeout=10s on role ${a.toolsRole}: stricter than the 60s migrate sets`,
    ]);
    await a.pool.query(`ALTER ROLE ${a.toolsRole} SET statement_timeout = '5min'`);
    expect((await migrate(a.pool)).toolsRole.notes).toEqual([]);
    expect(await timeoutOf(a)).toBe('statement_timeout=60s');
  });

  it("says PostgreSQL's reason when the SQL tools cannot reach their database", async () => {
    const login = { url: toolsLoginAt(a, b), configured: true };
    const outcome = await checkToolsLogin(login);
    expect(outcome.reason).toBe('unreachable');
    expect(outcome.log?.message).toMatch(
      /^the SQL tools cannot reach their database \(permission denied for database "[^"]+" \(SQLSTATE 42501\)\): grant the role CONNECT/
    );
    const closed = new URL(toolsDatabaseUrl(a.url));
    closed.port = '1';
    closed.password = 'never-logged';
    const refusedPort = await checkToolsLogin({ url: closed.toString(), configured: true });
    expect(refusedPort.log?.message).toMatch(/^the SQL tools cannot reach their database \(.*ECONNREFUSED.*\): SQL/);
    expect(JSON.stringify(refusedPort.log?.message)).not.toContain('never-logged');
  });
});

/**
 * A database an older build migrated: its tools used the one shared role, `convengine_tools_ro`. The first `migrate`
 * of this build moves them to the database's own role: it reads what the shared one read (tables created later
 * too), the shared one loses every privilege here, and a DBA's stricter limit on it carries over. The shared role is
 * every run's: this only grants and revokes within this run's database, and sets its limit in that database only.
 */
describe('upgrading a database an older build migrated', () => {
  let old: TestDatabase;
  beforeAll(async () => {
    old = await createTestDatabase();
    const own = old.toolsRole;
    await old.pool.query(`
      CREATE TABLE business.accounts (id int PRIMARY KEY, owner text NOT NULL);
      INSERT INTO business.accounts VALUES (1, 'kept');
      REVOKE ALL ON ALL TABLES IN SCHEMA business FROM ${own};
      REVOKE ALL ON SCHEMA business FROM ${own};
      ALTER DEFAULT PRIVILEGES IN SCHEMA business REVOKE ALL ON TABLES FROM ${own};
      REVOKE CONNECT ON DATABASE ${old.name} FROM ${own};
      DROP ROLE ${own};
      GRANT USAGE ON SCHEMA business TO ${LEGACY_TOOLS_ROLE};
      GRANT SELECT ON ALL TABLES IN SCHEMA business TO ${LEGACY_TOOLS_ROLE};
      ALTER DEFAULT PRIVILEGES IN SCHEMA business GRANT SELECT ON TABLES TO ${LEGACY_TOOLS_ROLE};
      ALTER ROLE ${LEGACY_TOOLS_ROLE} IN DATABASE ${old.name} SET statement_timeout = '10s';
      CREATE FUNCTION business."Balance Of"(n int) RETURNS int LANGUAGE sql AS 'SELECT n';
      CREATE SEQUENCE business."ticket seq";
      REVOKE EXECUTE ON FUNCTION business."Balance Of"(int) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION business."Balance Of"(int) TO ${LEGACY_TOOLS_ROLE};
      GRANT USAGE, SELECT ON SEQUENCE business."ticket seq" TO ${LEGACY_TOOLS_ROLE};
      ALTER DEFAULT PRIVILEGES IN SCHEMA business GRANT USAGE, SELECT ON SEQUENCES TO ${LEGACY_TOOLS_ROLE};
      ALTER DEFAULT PRIVILEGES IN SCHEMA business GRANT EXECUTE ON FUNCTIONS TO ${LEGACY_TOOLS_ROLE};
    `);
  });
  afterAll(async () => old?.drop());

  it("moves the database's SQL tools to its own role and takes everything here from the shared one", async () => {
    const report = await migrate(old.pool);
    expect(report.toolsRole).toEqual({
      role: toolsRoleOf(old.name),
      notes: [
        `kept statement_timeout=10s on role ${old.toolsRole}: stricter than the 60s migrate sets`,
        `moved the SQL tools' privileges in this database from role ${LEGACY_TOOLS_ROLE} to role ${old.toolsRole}`,
      ],
    });
    await old.pool.query('CREATE TABLE business.later (v text)');
    const can = async (role: string) => {
      const { rows } = await old.pool.query<{ schema: boolean; accounts: boolean; later: boolean }>(
        `SELECT has_schema_privilege($1::name, 'business', 'USAGE') AS schema,
                has_table_privilege($1::name, 'business.accounts', 'SELECT') AS accounts,
                has_table_privilege($1::name, 'business.later', 'SELECT') AS later`,
        [role]
      );
      return rows[0];
    };
    expect(await can(old.toolsRole)).toEqual({ schema: true, accounts: true, later: true });
    await old.pool.query('CREATE SEQUENCE business.later_seq');
    const canRoutinesAndSequences = async (role: string) => {
      const { rows } = await old.pool.query<{ fn: boolean; seq: boolean; laterSeq: boolean }>(
        `SELECT has_function_privilege($1::name, 'business."Balance Of"(int)', 'EXECUTE') AS fn,
                has_sequence_privilege($1::name, 'business."ticket seq"', 'USAGE, SELECT') AS seq,
                has_sequence_privilege($1::name, 'business.later_seq', 'USAGE, SELECT') AS "laterSeq"`,
        [role]
      );
      return rows[0];
    };
    expect(await can(LEGACY_TOOLS_ROLE)).toEqual({ schema: false, accounts: false, later: false });
    const tools = await old
      .toolsPool()
      .query<{ owner: string; timeout: string }>(
        "SELECT owner, current_setting('statement_timeout') AS timeout FROM business.accounts"
      );
    expect(tools.rows).toEqual([{ owner: 'kept', timeout: '10s' }]);
    expect(await canRoutinesAndSequences(old.toolsRole)).toEqual({ fn: true, seq: true, laterSeq: true });
    expect(await canRoutinesAndSequences(LEGACY_TOOLS_ROLE)).toEqual({ fn: false, seq: false, laterSeq: false });
    const called = await old.toolsPool().query('SELECT business."Balance Of"(7) AS b');
    expect(called.rows).toEqual([{ b: 7 }]);
    expect((await migrate(old.pool)).toolsRole.notes).toEqual([
      `kept statement_timeout=10s on role ${old.toolsRole}: stricter than the 60s migrate sets`,
    ]);
  });
});

/**
 * A new database: migration 0004 (unchanged, its checksum) grants the legacy shared role the business schema, and the
 * same `migrate` takes it back for the database's own role. Nothing was moved that an operator should hear of.
 */
describe("a new database's first migrate", () => {
  let fresh: TestDatabase;
  beforeAll(async () => {
    fresh = await createTestDatabase({ migrated: false });
  });
  afterAll(async () => fresh?.drop());

  it('says nothing of a move, and the legacy shared role holds nothing here', async () => {
    const report = await migrate(fresh.pool);
    expect(report.toolsRole).toEqual({ role: fresh.toolsRole, notes: [] });
    const { rows } = await fresh.pool.query<{ usage: boolean }>(
      "SELECT has_schema_privilege($1::name, 'business', 'USAGE') AS usage",
      [LEGACY_TOOLS_ROLE]
    );
    expect(rows).toEqual([{ usage: false }]);
  });
});
