/**
 * The worker's engine pool bounds each statement by WORKER_DB_QUERY_TIMEOUT_MS, as the API's is bounded. Before, it had
 * no bound: a statement on a frozen backend (SIGSTOP; here a TcpSwitch that stops forwarding one connection, as a lock
 * wait is already bounded by WORKER_DB_LOCK_TIMEOUT_MS) waited until the step's start-to-close (240 s for a model-led
 * run), and a stopping worker's pool.end() waited for it.
 */
import { loadEnv, WORKER_DB_LOCK_TIMEOUT_DEFAULT_MS } from '../../config/env';
import { MODEL_TIMEOUT_MS } from '../../core/turn/steps';
import { isDatabaseUnreachable } from '../../db/connection-loss';
import { isRetryableFailure, fromDatabaseError, toActivityFailure } from '../../activities/runtime/failure';
import { createLogger } from '../../observability/logger';
import { openWorkerDatabase } from '../../worker/deps';
import { captureLog } from '../support/log-capture';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { startTcpSwitch, type TcpSwitch } from '../support/tcp-switch';
import type { DbHandle } from '../../db/pool';
import { sql } from 'drizzle-orm';
import { within as settled } from '../support/within';

jest.setTimeout(30_000);

const BOUND_MS = 500;
/** Far past the bound: a statement still unanswered then waits for the frozen backend, as it did without one. */
const HUNG_MS = 8_000;

const pidOf = async (handle: DbHandle): Promise<number> => {
  const { rows } = await handle.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return rows[0]?.pid ?? -1;
};

/** `work`'s outcome (its error, when it fails), or 'still waiting' once `ms` (HUNG_MS) have passed. */
const within = <T>(work: Promise<T>, ms = HUNG_MS) => settled(work, ms);

describe("the worker's engine pool on a frozen backend", () => {
  let db: TestDatabase;
  let dbSwitch: TcpSwitch;
  let url: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    dbSwitch = await startTcpSwitch(Number(new URL(db.url).port));
    url = Object.assign(new URL(db.url), { port: String(dbSwitch.port) }).toString();
  });
  afterAll(async () => {
    await dbSwitch?.stop();
    await db?.drop();
  });

  /** A worker pool of one connection, opened and then frozen; `logger` told of its timeouts. */
  async function frozenWorkerPool(log = captureLog()) {
    const env = loadEnv({ WORKER_DB_POOL_MAX: '1', WORKER_DB_QUERY_TIMEOUT_MS: String(BOUND_MS) });
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: log.stream });
    const handle = openWorkerDatabase(url, env, logger);
    const frozenPid = await pidOf(handle);
    dbSwitch.stallLatest();
    return { handle, frozenPid, log };
  }

  it('ends the statement at the bound as a retryable lost connection, never reuses it, and warns naming the pool', async () => {
    const { handle, frozenPid, log } = await frozenWorkerPool();
    try {
      const started = performance.now();
      const stalled = await within(handle.db.execute(sql`SELECT 1`));
      const tookMs = performance.now() - started;
      expect(stalled).toBeInstanceOf(Error);
      expect(tookMs).toBeLessThan(BOUND_MS + 3_000);
      // What the step wrapper does with it (activities/step-runtime.ts): waits out the database, then a retryable
      // INTERNAL failure, never a non-retryable turn failure.
      expect(isDatabaseUnreachable(stalled)).toBe(true);
      const failure = toActivityFailure(fromDatabaseError(stalled));
      expect(failure).toMatchObject({ type: 'INTERNAL', nonRetryable: false });
      expect(isRetryableFailure(failure)).toBe(true);
      // The pool's one connection is a fresh one: the frozen session was destroyed, not handed out again.
      expect(await within(pidOf(handle))).not.toBe(frozenPid);
      const warned = log.lines().filter((line) => line.level === 'warn');
      expect(warned).toEqual([expect.objectContaining({ pool: 'convengine-worker', queryTimeoutMs: BOUND_MS })]);
    } finally {
      await handle.close();
    }
  });

  // Its BEGIN stalls: drizzle never releases a client whose BEGIN failed, and pool.end() waited for it forever.
  it('ends a transaction whose statement stalls, so closing the pool (a stopping worker) does not wait for it', async () => {
    const { handle } = await frozenWorkerPool();
    const stalled = handle.db.transaction((tx) => tx.execute(sql`SELECT 1`)).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await within(handle.close())).toBeUndefined();
    expect(isDatabaseUnreachable(await stalled)).toBe(true);
  });

  it('bounds it by default: past the lock timeout, short of a model-led run', () => {
    const bound = loadEnv({}).WORKER_DB_QUERY_TIMEOUT_MS;
    expect(bound).toBeGreaterThan(WORKER_DB_LOCK_TIMEOUT_DEFAULT_MS);
    expect(bound).toBeLessThan(MODEL_TIMEOUT_MS);
    const handle = openWorkerDatabase(db.url, loadEnv({}));
    expect((handle.pool.options as { query_timeout?: number }).query_timeout).toBe(bound);
    return handle.close();
  });
});
