import type { ReadOnlyQuery, ReadOnlySqlTarget } from '../../../activities/tools/sql/executor';
import { createTestDatabase, type TestDatabase } from '../../support/database';

/**
 * What the executor tests (sql-executor*.test.ts) run against, set up in the file's beforeAll and dropped after its
 * tests: a test database whose business schema has 30 orders, a sequence, a function that inserts and, outside it, a
 * table of secrets; and the tools role's pool on it (`appTarget`).
 */
export function executorDatabase() {
  const db = {
    tdb: undefined as unknown as TestDatabase,
    appTarget: undefined as unknown as ReadOnlySqlTarget,
    /** The orders in the business schema: 30 while nothing has written. */
    count: () => orderCount(db.tdb),
  };
  beforeAll(async () => {
    db.tdb = await createTestDatabase();
    await db.tdb.pool.query(`
      CREATE TABLE business.orders (id int PRIMARY KEY, created_at timestamptz NOT NULL, epoch_ms bigint NOT NULL);
      INSERT INTO business.orders SELECT g, now() - g * interval '1 day', 1000 * g FROM generate_series(1, 30) g;
      CREATE SEQUENCE business.order_seq;
      CREATE FUNCTION business.sneaky_insert() RETURNS int LANGUAGE sql
        AS 'INSERT INTO business.orders VALUES (999, now(), 0) RETURNING 1';
      CREATE TABLE public.secrets (v text); INSERT INTO public.secrets VALUES ('top secret');
    `);
    db.appTarget = { pool: db.tdb.toolsPool() };
  });
  afterAll(async () => db.tdb.drop());
  return db;
}

async function orderCount(tdb: TestDatabase): Promise<number> {
  const r = await tdb.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM business.orders');
  return r.rows[0]?.n ?? -1;
}

export const query = (text: string, values: unknown[] = [], extra: Partial<ReadOnlyQuery> = {}): ReadOnlyQuery => ({
  text,
  values,
  maxRows: 100,
  statementTimeoutMs: 5000,
  ...extra,
});
