/**
 * A pool's query_timeout (API_DB_QUERY_TIMEOUT_MS for the API's): a statement that gets no answer fails, and its
 * connection is closed rather than handed to the next statement. pg answers the timed-out caller but leaves the
 * statement on the connection; a client released without an error (every drizzle transaction's) went back to the pool,
 * and every later statement on it queued behind the stalled one.
 */
import { Client } from 'pg';
import { isDatabaseBusy, isDatabaseUnreachable } from '../../db/connection-loss';
import { createPool } from '../../db/pool';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(30_000);

describe('a pool with a query_timeout, on a table another session holds locked', () => {
  let db: TestDatabase;
  let locker: Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    locker = new Client({ connectionString: db.url });
    await locker.connect();
    await locker.query('CREATE TABLE stalled (id int)');
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE stalled IN ACCESS EXCLUSIVE MODE');
  });
  afterAll(async () => {
    await locker?.query('ROLLBACK');
    await locker?.end();
    await db?.drop();
  });

  it('fails the stalled statement as an unreachable database and gives the next one a fresh connection', async () => {
    const pool = createPool(db.url, { max: 1, query_timeout: 300 });
    const timedOut: Error[] = [];
    pool.on('query-timeout' as 'error', (err) => timedOut.push(err));
    try {
      const client = await pool.connect();
      const stalled = await client.query('SELECT * FROM stalled').catch((err: unknown) => err);
      // As a drizzle transaction releases its client: without an error.
      client.release();
      expect(isDatabaseUnreachable(stalled)).toBe(true);
      // Nothing else answered on this pool while it waited: not a busy one.
      expect(isDatabaseBusy(stalled)).toBe(false);
      expect(timedOut).toEqual([stalled]);
      // The pool's one connection: a fresh one, or the stalled one, where it would wait past its own timeout.
      const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('marks it busy when the pool got answers to other statements meanwhile', async () => {
    const pool = createPool(db.url, { max: 2, query_timeout: 2000 });
    try {
      // Both connections open first: on a loaded host opening one for SELECT 1 could take longer than the timeout.
      const warm = await Promise.all([pool.connect(), pool.connect()]);
      for (const client of warm) client.release();
      const stalled = pool.query('SELECT * FROM stalled').catch((err: unknown) => err);
      await pool.query('SELECT 1');
      expect(isDatabaseBusy(await stalled)).toBe(true);
    } finally {
      await pool.end();
    }
  });
});
