import { Client } from 'pg';
import { executeReadOnly, type ReadOnlySqlTarget } from '../../../activities/tools/sql/executor';
import { toolsDatabaseUrl } from '../../../db/tools-role';
import { toolsRoleAdvisoryLocks } from '../../support/database';
import { engineFailure } from '../../support/engine-failure';
import { executorDatabase, query } from './sql-executor-fixture';

/**
 * Defense in depth (P4, D20), continued from sql-executor.test.ts: the tools role's own login, whatever the SQL
 * (no role change, lock or sleep, leaked internals, dirty pooled connection or write), and a lost connection.
 */
describe('read-only SQL executor', () => {
  const db = executorDatabase();

  it('runs as the tools login, which no role change can escape', async () => {
    const who = await executeReadOnly(db.appTarget, query('select current_user as u, session_user as s'));
    expect(who.rows).toEqual([{ u: db.tdb.toolsRole, s: db.tdb.toolsRole }]);
    const escaped = await executeReadOnly(
      db.appTarget,
      query("select set_config('role', 'none', true) as r, current_user as u")
    );
    expect(escaped.rows).toEqual([{ r: 'none', u: db.tdb.toolsRole }]);
    const su = await engineFailure(executeReadOnly(db.appTarget, query("select set_config('role', 'postgres', true)")));
    expect(su.message).toMatch(/permission denied to set role/);
    const members = await db.tdb.pool.query(
      'SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = $1',
      [db.tdb.toolsRole]
    );
    expect(members.rowCount).toBe(0);
  });

  it('cannot take an advisory lock or sleep (EXECUTE revoked for the tools role)', async () => {
    for (const sql of ['select pg_advisory_lock(42)', 'select pg_try_advisory_lock(42)', 'select pg_sleep(0)']) {
      expect(await engineFailure(executeReadOnly(db.appTarget, query(sql)))).toMatchObject({
        type: 'TOOL_NOT_ALLOWED',
      });
    }
    expect(await toolsRoleAdvisoryLocks(db.tdb)).toBe(0);
  });

  it('never shows connection internals or query text in its errors', async () => {
    const bad = await engineFailure(
      executeReadOnly(
        db.appTarget,
        query("select 'a-much-longer-value-than-anyone-should-see-in-an-error-message'::int")
      )
    );
    expect(bad.message).toContain('invalid input syntax for type integer');
    expect(bad.message).not.toContain('anyone-should-see');
    expect(bad.message).not.toContain('select');
    const url = new URL(toolsDatabaseUrl(db.tdb.url));
    url.port = '1';
    const unreachable = await engineFailure(
      executeReadOnly(
        { pool: new (await import('pg')).Pool({ connectionString: url.toString(), max: 1 }) },
        query('select 1')
      )
    );
    expect(unreachable.message).toBe('Connecting for a SQL tool failed: the database connection for SQL tools failed');
  });

  it('runs a query whose connection was lost again on a fresh one, and fails when every try loses it', async () => {
    const pool = db.appTarget.pool;
    // A pooled client whose backend the server has ended, as after a failover or pg_terminate_backend.
    const deadClient = async () => {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const lost = new Promise((resolve) => client.once('error', resolve));
      await db.tdb.pool.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
      await lost;
      return client;
    };
    let connects = 0;
    const losesFirst = {
      options: pool.options,
      connect: async () => (++connects === 1 ? deadClient() : pool.connect()),
    } as unknown as ReadOnlySqlTarget['pool'];
    const out = await executeReadOnly({ pool: losesFirst }, query('select count(*)::int as n from orders'));
    expect(out.rows).toEqual([{ n: 30 }]);
    expect(connects).toBe(2);

    connects = 0;
    const losesAll = {
      options: pool.options,
      connect: async () => (++connects, deadClient()),
    } as unknown as ReadOnlySqlTarget['pool'];
    const lost = await engineFailure(executeReadOnly({ pool: losesAll }, query('select 1')));
    expect(lost.message).toBe('SQL tool query failed: the database connection for SQL tools failed');
    expect(lost.retryable).toBe(true);
    expect(connects).toBe(3);
  });

  it('leaves the pooled connection clean (read-only mode and settings end with the transaction)', async () => {
    await executeReadOnly(db.appTarget, query("select set_config('application_name', 'tampered', false)"));
    const client = await db.appTarget.pool.connect();
    try {
      const r = await client.query<{ app: string; ro: string }>(
        "select current_setting('application_name') as app, current_setting('transaction_read_only') as ro"
      );
      expect(r.rows[0]?.app).not.toBe('tampered');
    } finally {
      client.release();
    }
  });

  it('the role alone refuses writes, even outside a read-only transaction', async () => {
    const client = new Client({ connectionString: toolsDatabaseUrl(db.tdb.url) });
    await client.connect();
    try {
      await client.query('BEGIN READ WRITE');
      await expect(client.query('INSERT INTO business.orders VALUES (1000, now(), 0)')).rejects.toThrow(
        /permission denied/
      );
      await client.query('ROLLBACK');
      await expect(client.query('SELECT count(*) FROM public.ce_conversation')).rejects.toThrow(/permission denied/);
    } finally {
      await client.end();
    }
    expect(await db.count()).toBe(30);
  });
});
