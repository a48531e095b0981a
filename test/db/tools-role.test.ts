import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../db/embedded';
import { migrate } from '../../db/migrate';
import { openDatabase } from '../../db/pool';
import { toolsDatabaseUrl, toolsLoginOf, toolsRoleOf, toolsRolePassword } from '../../db/tools-role';
import { databaseNameOf } from '../../db/tools-role-names';
import { checkToolsLogin } from '../../observability/tools-login';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newHome } from '../support/embedded-stack';
import { runConvengine } from '../support/run-cli';

/** The tools role (D20): derived credentials, and `migrate` keeping the role safe on every run. */
describe('tools role credentials', () => {
  it("derives the password from the engine password and the database's role: stable, distinct, none without one", () => {
    const a = toolsRolePassword('postgres://app:s3cret@127.0.0.1:5432/convengine');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(toolsRolePassword('postgres://other:s3cret@db:6543/convengine')).toBe(a);
    expect(toolsRolePassword('postgres://app:s3cret@127.0.0.1:5432/x')).not.toBe(a);
    expect(toolsRolePassword('postgres://app:another@127.0.0.1:5432/convengine')).not.toBe(a);
    expect(toolsRolePassword('postgres://postgres@127.0.0.1:5432/test')).toBeNull();
    const url = new URL(toolsDatabaseUrl('postgres://app:s3cret@127.0.0.1:5433/convengine?sslmode=disable'));
    expect([url.username, url.password, url.host, url.pathname, url.search]).toEqual([
      'convengine_tools_ro_convengine',
      a,
      '127.0.0.1:5433',
      '/convengine',
      '?sslmode=disable',
    ]);
    expect(new URL(toolsDatabaseUrl('postgres://postgres@127.0.0.1:5432/test')).password).toBe('');
  });
});

describe('migrate keeps the tools role safe', () => {
  let tdb: TestDatabase;
  const group = `ce_tools_group_${randomBytes(3).toString('hex')}`;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await tdb.pool.query(`DROP ROLE IF EXISTS ${group}`);
    await tdb.drop();
  });

  it('removes any role membership and sets the role defaults and the derived password', async () => {
    await tdb.pool.query(`CREATE ROLE ${group}`);
    await tdb.pool.query(`GRANT ${group} TO ${tdb.toolsRole}`);
    const url = new URL(tdb.url);
    // A trust-auth server takes any password: give the engine one so a tools password is derived.
    // A server with password auth (the embedded one) already has it.
    if (url.password === '') url.password = 'engine-secret';
    const handle = openDatabase(url.toString(), { max: 1 });
    try {
      await migrate(handle.pool);
    } finally {
      await handle.close();
    }
    const members = await tdb.pool.query(
      'SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = $1',
      [tdb.toolsRole]
    );
    expect(members.rowCount).toBe(0);
    const role = await tdb.pool.query<{ rolsuper: boolean; rolinherit: boolean; rolconfig: string[]; pw: boolean }>(
      `SELECT r.rolsuper, r.rolinherit, r.rolconfig, a.rolpassword IS NOT NULL AS pw
         FROM pg_roles r JOIN pg_authid a ON a.oid = r.oid WHERE r.rolname = $1`,
      [tdb.toolsRole]
    );
    expect(role.rows[0]).toMatchObject({ rolsuper: false, rolinherit: false, pw: true });
    expect(role.rows[0]?.rolconfig).toEqual(
      expect.arrayContaining([
        'search_path=business',
        'default_transaction_read_only=on',
        'lock_timeout=5s',
        'DateStyle=ISO',
        'IntervalStyle=postgres',
        'TimeZone=UTC',
      ])
    );
  });

  it('logs in as the tools role on its own URL, which cannot read the engine tables', async () => {
    const client = new Client({ connectionString: toolsDatabaseUrl(tdb.url) });
    await client.connect();
    try {
      const who = await client.query<{ u: string; ro: string }>(
        "select current_user as u, current_setting('default_transaction_read_only') as ro"
      );
      expect(who.rows[0]).toEqual({ u: tdb.toolsRole, ro: 'on' });
      await expect(client.query('select count(*) from public.ce_conversation')).rejects.toThrow(/permission denied/);
      await expect(client.query('reset role')).resolves.toBeDefined();
      expect((await client.query<{ u: string }>('select current_user as u')).rows[0]?.u).toBe(tdb.toolsRole);
    } finally {
      await client.end();
    }
  });
});

/**
 * On a server that checks passwords (the embedded one; the shared test server trusts every login), the role's
 * password an operator gave it (deploy/db/init does, with TOOLS_DATABASE_URL) survives `migrate` run as a superuser.
 */
describe('migrate with TOOLS_DATABASE_URL set, on a password-auth server', () => {
  const home = newHome();
  let pg: EmbeddedPostgres;
  const operatorPassword = 'ToolsPw14';
  const toolsRole = () => toolsRoleOf(databaseNameOf(pg.url));
  const operatorLogin = () => {
    const url = new URL(pg.url);
    url.username = toolsRole();
    url.password = operatorPassword;
    return url.toString();
  };
  const canLogIn = async (url: string) => (await checkToolsLogin({ url, configured: true })).reason === 'ok';
  beforeAll(async () => {
    pg = await startEmbeddedPostgres(home);
    const handle = openDatabase(pg.url, { max: 1 });
    try {
      await migrate(handle.pool);
      await handle.pool.query(`ALTER ROLE ${toolsRole()} PASSWORD '${operatorPassword}'`);
    } finally {
      await handle.close();
    }
  });
  afterAll(async () => {
    await pg?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('`convengine migrate` as a superuser keeps the password TOOLS_DATABASE_URL logs in with', async () => {
    expect(await canLogIn(operatorLogin())).toBe(true);
    const run = await runConvengine(['migrate'], { DATABASE_URL: pg.url, TOOLS_DATABASE_URL: operatorLogin() });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(await canLogIn(operatorLogin())).toBe(true);
  });

  it('still makes the role safe (no membership), and without TOOLS_DATABASE_URL sets the derived password', async () => {
    const handle = openDatabase(pg.url, { max: 1 });
    try {
      await handle.pool.query(`CREATE ROLE ce_tools_group_h`);
      await handle.pool.query(`GRANT ce_tools_group_h TO ${toolsRole()}`);
      await migrate(handle.pool, undefined, { toolsDatabaseUrl: operatorLogin() });
      const members = await handle.pool.query(
        'SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = $1',
        [toolsRole()]
      );
      expect(members.rowCount).toBe(0);
      expect(await canLogIn(operatorLogin())).toBe(true);

      await migrate(handle.pool);
      expect(await canLogIn(operatorLogin())).toBe(false);
      expect(await canLogIn(toolsDatabaseUrl(pg.url))).toBe(true);
    } finally {
      await handle.close();
    }
  });

  it('says what a refused tools login needs, naming the role in the log and never the password', async () => {
    const refused = await checkToolsLogin(toolsLoginOf(operatorLogin(), pg.url));
    expect(refused.reason).toBe('login refused: check TOOLS_DATABASE_URL');
    expect(refused.log?.fields).toEqual({ sqlState: '28P01' });
    expect(refused.log?.message).toMatch(
      new RegExp(
        `^the SQL tools' login failed, .*: authentication failed for role "${toolsRole()}" .*: check TOOLS_DATABASE_URL$`
      )
    );
    expect(JSON.stringify(refused)).not.toContain(operatorPassword);
    const run = await runConvengine(['migrate'], { DATABASE_URL: pg.url, TOOLS_DATABASE_URL: operatorLogin() });
    expect(run.code).toBe(0);
    expect(run.stderr.trim()).toBe(`warning: ${refused.log?.message}`);
  });

  it.each([
    ['SUPERUSER', 'b'],
    ['CREATEROLE', 'c'],
  ])(
    "leaves this database's SQL tools login working when another deployment's %s engine migrates on the server (S35)",
    async (attribute, deployment) => {
      const admin = openDatabase(pg.url, { max: 1 });
      const other = new URL(pg.url);
      [other.username, other.password, other.pathname] = [
        `engine_${deployment}`,
        'EngineB15',
        `/deployment_${deployment}`,
      ];
      try {
        await admin.pool.query(`CREATE ROLE engine_${deployment} LOGIN ${attribute} PASSWORD 'EngineB15'`);
        await admin.pool.query(`CREATE DATABASE deployment_${deployment} OWNER engine_${deployment}`);
        await migrate(admin.pool);
        expect(await canLogIn(toolsDatabaseUrl(pg.url))).toBe(true);
        const b = openDatabase(other.toString(), { max: 1 });
        try {
          await migrate(b.pool);
        } finally {
          await b.close();
        }
        expect(await canLogIn(toolsDatabaseUrl(pg.url))).toBe(true);
        expect(await canLogIn(toolsDatabaseUrl(other.toString()))).toBe(true);
        expect(new URL(toolsDatabaseUrl(other.toString())).username).toBe(
          `convengine_tools_ro_deployment_${deployment}`
        );
      } finally {
        await admin.close();
      }
    }
  );
});
