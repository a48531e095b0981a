import { Client } from 'pg';
import { executeReadOnly, TOOLS_ROLE, type ReadOnlySqlTarget } from '../../../activities/tools/sql/executor';
import { createPool } from '../../../db/pool';
import { EngineError } from '../../../core/errors';
import { createTestDatabase, type TestDatabase } from '../../support/database';

/**
 * Defense in depth (P4): these tests hand SQL to the executor directly, as if the guardrail had
 * been bypassed, and show that nothing can be written: the READ ONLY transaction and the
 * read-only role each refuse on their own.
 */
let tdb: TestDatabase;
let appTarget: ReadOnlySqlTarget;

async function count(): Promise<number> {
  const r = await tdb.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM business.orders');
  return r.rows[0]?.n ?? -1;
}

async function failure(promise: Promise<unknown>): Promise<EngineError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e
  );
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

beforeAll(async () => {
  tdb = await createTestDatabase();
  await tdb.pool.query(`
    CREATE TABLE business.orders (id int PRIMARY KEY, created_at timestamptz NOT NULL, epoch_ms bigint NOT NULL);
    INSERT INTO business.orders SELECT g, now() - g * interval '1 day', 1000 * g FROM generate_series(1, 30) g;
    CREATE SEQUENCE business.order_seq;
    CREATE FUNCTION business.sneaky_insert() RETURNS int LANGUAGE sql
      AS 'INSERT INTO business.orders VALUES (999, now(), 0) RETURNING 1';
    CREATE TABLE public.secrets (v text); INSERT INTO public.secrets VALUES ('top secret');
  `);
  appTarget = { pool: tdb.pool, dedicatedRole: false };
});
afterAll(async () => tdb.drop());

const query = (
  text: string,
  values: unknown[] = [],
  extra: { maxRows?: number; statementTimeoutMs?: number } = {}
) => ({
  text,
  values,
  maxRows: extra.maxRows ?? 100,
  statementTimeoutMs: extra.statementTimeoutMs ?? 5000,
});

describe('read-only SQL executor', () => {
  it('reads the business schema through the search path, binds values and caps rows', async () => {
    const out = await executeReadOnly(
      appTarget,
      query('select id, created_at from orders where id <= $1 order by id', [12], { maxRows: 10 })
    );
    expect(out.rowCount).toBe(10);
    expect(out.truncated).toBe(true);
    expect(out.rows[0]).toEqual({ id: 1, created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
    const all = await executeReadOnly(appTarget, query('select id from orders where id <= 3;'));
    expect(all).toMatchObject({ rowCount: 3, truncated: false });
  });

  it('cannot write even through a function that inserts (READ ONLY transaction)', async () => {
    const err = await failure(executeReadOnly(appTarget, query('select business.sneaky_insert()')));
    expect(err).toMatchObject({ type: 'TOOL_NOT_ALLOWED', retryable: false });
    expect(err.message).toMatch(/read-only transaction|permission denied/);
    expect(await count()).toBe(30);
  });

  it('cannot advance a sequence or read outside the business schema', async () => {
    expect((await failure(executeReadOnly(appTarget, query("select nextval('business.order_seq')")))).type).toBe(
      'TOOL_NOT_ALLOWED'
    );
    const secret = await failure(executeReadOnly(appTarget, query('select v from public.secrets')));
    expect(secret.message).toContain('permission denied');
  });

  it('runs exactly one statement (extended protocol) and times out long queries', async () => {
    await failure(executeReadOnly(appTarget, query('select 1; delete from orders')));
    const slow = await failure(
      executeReadOnly(appTarget, query('select pg_sleep(2)', [], { statementTimeoutMs: 150 }))
    );
    expect(slow).toMatchObject({ type: 'TOOL_TIMEOUT', retryable: true });
    expect(await count()).toBe(30);
  });

  it('leaves the pooled connection clean (role and read-only mode end with the transaction)', async () => {
    await executeReadOnly(appTarget, query('select 1'));
    const r = await tdb.pool.query<{ role: string; ro: string }>(
      "select current_user as role, current_setting('transaction_read_only') as ro"
    );
    expect(r.rows[0]).toEqual({ role: 'postgres', ro: 'off' });
  });

  it('the role alone refuses writes, even outside a read-only transaction', async () => {
    const client = new Client({ connectionString: tdb.url });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL ROLE ${TOOLS_ROLE}`);
      await expect(client.query('INSERT INTO business.orders VALUES (1000, now(), 0)')).rejects.toThrow(
        /permission denied/
      );
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
    expect(await count()).toBe(30);
  });

  it('works with a dedicated login of the read-only role (TOOLS_DATABASE_URL)', async () => {
    const url = new URL(tdb.url);
    url.username = TOOLS_ROLE;
    const pool = createPool(url.toString(), { max: 1 });
    try {
      const target: ReadOnlySqlTarget = { pool, dedicatedRole: true };
      expect((await executeReadOnly(target, query('select count(*)::int as n from orders'))).rows).toEqual([{ n: 30 }]);
      await failure(executeReadOnly(target, query('select business.sneaky_insert()')));
    } finally {
      await pool.end();
    }
    expect(await count()).toBe(30);
  });
});
