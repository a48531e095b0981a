/**
 * A pool's query_timeout (API_DB_QUERY_TIMEOUT_MS for the API's): a statement that gets no answer fails, and its
 * connection is closed rather than handed to the next statement. pg answers the timed-out caller but leaves the
 * statement on the connection; a client released without an error (every drizzle transaction's) went back to the pool,
 * and every later statement on it queued behind the stalled one.
 */
import Fastify from 'fastify';
import { sql } from 'drizzle-orm';
import { loadEnv } from '../../config/env';
import { installErrorHandler } from '../../api/error-handler';
import { openWorkerDatabase } from '../../worker/deps';
import { Client, type ClientBase } from 'pg';
import { isDatabaseBusy, isDatabaseUnreachable } from '../../db/connection-loss';
import { createPool, type DbHandle } from '../../db/pool';
import { QUERY_TIMEOUT_MESSAGE } from '../../db/session-client';
import { createLogger } from '../../observability/logger';
import { openBoundedDatabase, warnOnQueryTimeouts } from '../../observability/query-timeouts';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog } from '../support/log-capture';

jest.setTimeout(30_000);

/** A session setting whose set_config reads pg_ts_config: a session holding that catalog locked stalls pinSession. */
const TS_CONFIG_SESSION = { default_text_search_config: 'pg_catalog.english' };

async function backendPid(client: ClientBase): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return rows[0]?.pid ?? -1;
}

/** A transaction whose statement reads the locked table, its error; the pool answering other statements meanwhile. */
async function stalledTransaction(handle: DbHandle): Promise<unknown> {
  const stalled = handle.db.transaction((tx) => tx.execute(sql`SELECT * FROM stalled`)).catch((err: unknown) => err);
  const done = { at: false };
  void stalled.finally(() => (done.at = true));
  while (!done.at) await handle.pool.query('SELECT 1');
  return stalled;
}

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

  it("hands the timed-out client back to pg-pool with the timeout's error, which destroys it: never reused", async () => {
    const pool = createPool(db.url, { max: 1, query_timeout: 300 });
    const released: unknown[] = [];
    const removed: unknown[] = [];
    pool.on('release', (err) => released.push(err));
    pool.on('remove', (client) => removed.push(client));
    try {
      const client = await pool.connect();
      const backend = await backendPid(client);
      const stalled = await client.query('SELECT * FROM stalled').catch((err: unknown) => err);
      // As a drizzle transaction does after a failed statement: ROLLBACK, then release without an error.
      const rollback = await client.query('ROLLBACK').catch((err: unknown) => err);
      client.release();
      expect(stalled).toMatchObject({ message: QUERY_TIMEOUT_MESSAGE });
      // Failed at once on the closed session, not queued behind the stalled statement until a timeout of its own: with
      // the stalled statement's error (a drizzle transaction throws the ROLLBACK's), not pg's "Client was closed".
      expect(rollback).toBe(stalled);
      // pg-pool's public contract: a client released with an error is disconnected and destroyed.
      expect(released.slice(-1)).toEqual([stalled]);
      const next = await pool.connect();
      try {
        expect(removed).toHaveLength(1);
        expect(removed[0]).toBe(client);
        expect(next).not.toBe(client);
        expect(await backendPid(next)).not.toBe(backend);
      } finally {
        next.release();
      }
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

  it("logs a timeout of a new connection's session setup naming the pool; busy while the pool answers others", async () => {
    const pool = createPool(
      db.url,
      { max: 2, query_timeout: 300, application_name: 'convengine-api' },
      TS_CONFIG_SESSION
    );
    const log = captureLog();
    warnOnQueryTimeouts(pool, createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream }));
    // Opened before the lock, and checked out so that the next connect opens a second connection; then given back,
    // it answers the pool's statements while that connection's setup waits.
    const answering = await pool.connect();
    // Within the transaction that holds `stalled` locked: rolled back to, the savepoint gives this lock up alone.
    await locker.query('SAVEPOINT setup');
    await locker.query('LOCK TABLE pg_catalog.pg_ts_config IN ACCESS EXCLUSIVE MODE');
    try {
      const stalled = pool.connect().catch((err: unknown) => err);
      answering.release();
      const done = { at: false };
      void stalled.finally(() => (done.at = true));
      while (!done.at) await pool.query('SELECT 1');
      const err = await stalled;
      expect(err).toMatchObject({ message: QUERY_TIMEOUT_MESSAGE });
      expect(isDatabaseBusy(err)).toBe(true);
      const warned = log.lines().filter((line) => line.level === 'warn');
      expect(warned).toEqual([expect.objectContaining({ pool: 'convengine-api', queryTimeoutMs: 300 })]);
    } finally {
      await locker.query('ROLLBACK TO SAVEPOINT setup');
      await pool.end();
    }
  });

  // Drizzle runs ROLLBACK on the session the timeout ended and throws its error: pg's "Client was closed" lost the
  // timeout and its busy mark (the API said 503 DATABASE_UNREACHABLE, a worker's step named a failed rollback).
  it('answers a transaction timed out while the pool answers others 503 DATABASE_BUSY in the API', async () => {
    const handle = openBoundedDatabase(db.url, { name: 'convengine-api', max: 2, queryTimeoutMs: 500 });
    const app = Fastify();
    installErrorHandler(app);
    app.get('/stalled', async () => Promise.reject(await stalledTransaction(handle)));
    try {
      const res = await app.inject({ method: 'GET', url: '/stalled' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ error: { code: 'DATABASE_BUSY' } });
    } finally {
      await app.close();
      await handle.close();
    }
  });

  it("fails a worker's timed-out transaction with the timeout, not the ROLLBACK's closed client", async () => {
    const env = loadEnv({ WORKER_DB_POOL_MAX: '2', WORKER_DB_QUERY_TIMEOUT_MS: '500' });
    const handle = openWorkerDatabase(db.url, env);
    try {
      const err = await stalledTransaction(handle);
      expect(err).toMatchObject({ cause: { message: QUERY_TIMEOUT_MESSAGE } });
    } finally {
      await handle.close();
    }
  });
});
