import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrate } from '../../db/migrate';
import { openDatabase } from '../../db/pool';
import { TOOLS_ROLE, toolsDatabaseUrl, toolsRolePassword } from '../../db/tools-role';
import { createTestDatabase, type TestDatabase } from '../support/database';

/** The tools role (D20): derived credentials, and `migrate` keeping the role safe on every run. */
describe('tools role credentials', () => {
  it('derives the password from the engine password: stable, distinct, none without one', () => {
    const a = toolsRolePassword('postgres://app:s3cret@127.0.0.1:5432/convengine');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(toolsRolePassword('postgres://other:s3cret@db:6543/x')).toBe(a);
    expect(toolsRolePassword('postgres://app:another@127.0.0.1:5432/convengine')).not.toBe(a);
    expect(toolsRolePassword('postgres://postgres@127.0.0.1:5432/test')).toBeNull();
    const url = new URL(toolsDatabaseUrl('postgres://app:s3cret@127.0.0.1:5433/convengine?sslmode=disable'));
    expect([url.username, url.password, url.host, url.pathname, url.search]).toEqual([
      TOOLS_ROLE,
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
    await tdb.pool.query(`GRANT ${group} TO ${TOOLS_ROLE}`);
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
      [TOOLS_ROLE]
    );
    expect(members.rowCount).toBe(0);
    const role = await tdb.pool.query<{ rolsuper: boolean; rolinherit: boolean; rolconfig: string[]; pw: boolean }>(
      `SELECT r.rolsuper, r.rolinherit, r.rolconfig, a.rolpassword IS NOT NULL AS pw
         FROM pg_roles r JOIN pg_authid a ON a.oid = r.oid WHERE r.rolname = $1`,
      [TOOLS_ROLE]
    );
    expect(role.rows[0]).toMatchObject({ rolsuper: false, rolinherit: false, pw: true });
    expect(role.rows[0]?.rolconfig).toEqual(
      expect.arrayContaining(['search_path=business', 'default_transaction_read_only=on', 'lock_timeout=5s'])
    );
  });

  it('logs in as the tools role on its own URL, which cannot read the engine tables', async () => {
    const client = new Client({ connectionString: toolsDatabaseUrl(tdb.url) });
    await client.connect();
    try {
      const who = await client.query<{ u: string; ro: string }>(
        "select current_user as u, current_setting('default_transaction_read_only') as ro"
      );
      expect(who.rows[0]).toEqual({ u: TOOLS_ROLE, ro: 'on' });
      await expect(client.query('select count(*) from public.ce_conversation')).rejects.toThrow(/permission denied/);
      await expect(client.query('reset role')).resolves.toBeDefined();
      expect((await client.query<{ u: string }>('select current_user as u')).rows[0]?.u).toBe(TOOLS_ROLE);
    } finally {
      await client.end();
    }
  });
});
