/**
 * The SQL tools' pool is bounded as the worker's engine pool is (WORKER_DB_QUERY_TIMEOUT_MS, worker/deps.ts
 * openToolsPool). Before, it had no client-side bound: a tool query on a frozen backend (SIGSTOP, a network black hole;
 * here a TcpSwitch that stops forwarding one connection) waited until the tool call's start-to-close, holding its pool
 * slot, as the server's statement_timeout cannot end a statement on a backend that does not run.
 */
import type { Pool } from 'pg';
import { executeReadOnly } from '../../../activities/tools/sql/executor';
import { loadEnv } from '../../../config/env';
import { toolsDatabaseUrl } from '../../../db/tools-role';
import { createLogger } from '../../../observability/logger';
import { openToolsPool } from '../../../worker/deps';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { engineFailure } from '../../support/engine-failure';
import { captureLog } from '../../support/log-capture';
import { startTcpSwitch, type TcpSwitch } from '../../support/tcp-switch';
import { query } from './sql-executor-fixture';
import { within as settled } from '../../support/within';

jest.setTimeout(60_000);

const BOUND_MS = 500;
/** Far past the bound: a query still unanswered then waits for the frozen backend, as it did without one. */
const HUNG_MS = 8_000;

/** `work`'s outcome (its error, when it fails), or 'still waiting' once `ms` (HUNG_MS) have passed. */
const within = <T>(work: Promise<T>, ms = HUNG_MS) => settled(work, ms);

const pidOf = async (pool: Pool) => (await executeReadOnly({ pool }, query('select pg_backend_pid() as pid'))).rows;

describe("the SQL tools' pool on a frozen backend", () => {
  let tdb: TestDatabase;
  let dbSwitch: TcpSwitch;
  let url: string;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    // Readable by the tools role (the business schema's default privileges); a test holds it locked.
    await tdb.pool.query('CREATE TABLE business.waits (id int); INSERT INTO business.waits VALUES (1)');
    dbSwitch = await startTcpSwitch(Number(new URL(tdb.url).port));
    url = Object.assign(new URL(toolsDatabaseUrl(tdb.url)), { port: String(dbSwitch.port) }).toString();
  });
  afterAll(async () => {
    await dbSwitch?.stop();
    await tdb?.drop();
  });
  afterEach(() => dbSwitch.set('pass'));

  const toolsPool = (log = captureLog()) => {
    const env = loadEnv({ WORKER_TOOLS_POOL_MAX: '1', WORKER_DB_QUERY_TIMEOUT_MS: String(BOUND_MS) });
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: log.stream });
    return { pool: openToolsPool(url, env, logger), log };
  };

  it('ends a tool query at the bound as a retryable TOOL_TIMEOUT, destroys its connection and warns', async () => {
    const { pool, log } = toolsPool();
    try {
      const frozenPid = await pidOf(pool);
      dbSwitch.stallLatest();
      const failed = await within(engineFailure(executeReadOnly({ pool }, query('select 1 as one'))));
      expect(failed).toMatchObject({ type: 'TOOL_TIMEOUT', retryable: true });
      expect((failed as Error).message).toMatch(/got no answer from the database in time.*connection was closed/);
      // The pool's one connection is a fresh one: the frozen session was destroyed, not handed out again.
      const after = await within(pidOf(pool));
      expect(after).toEqual([{ pid: expect.any(Number) }]);
      expect(after).not.toEqual(frozenPid);
      const warned = log.lines().filter((line) => line.level === 'warn');
      expect(warned).toEqual([expect.objectContaining({ pool: 'convengine-tools', queryTimeoutMs: BOUND_MS })]);
    } finally {
      await pool.end();
    }
  });

  /**
   * Runs `work` while another session holds business.waits locked, which a tool query waiting on it shows; `whileWaiting`
   * once it does, the lock released after it.
   */
  async function withWaitingToolQuery<T>(work: () => Promise<T>, whileWaiting: () => Promise<void>): Promise<T> {
    const holder = await tdb.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE business.waits IN ACCESS EXCLUSIVE MODE');
      const running = work();
      running.catch(() => undefined);
      await untilToolQueryWaits();
      await whileWaiting();
      await holder.query('COMMIT');
      return await running;
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
  }

  /** Waits until a backend waits for business.waits' lock: the tool's query runs, its session's setup was answered. */
  async function untilToolQueryWaits(): Promise<void> {
    for (let tries = 0; tries < 1_000; tries++) {
      const { rows } = await tdb.pool.query(
        `SELECT 1 FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE '%business.waits%' AND pid <> pg_backend_pid()`
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the tool query never waited for the lock');
  }

  const waiting = (statementTimeoutMs: number) =>
    query('select count(*)::int as n from business.waits', [], { statementTimeoutMs, lockTimeoutMs: 30_000 });

  it("lets a tool query run for its own statement timeout, longer than the pool's bound", async () => {
    const { pool } = toolsPool();
    try {
      // It waits three times the pool's bound for the lock, then answers: that bound alone ended it as a TOOL_TIMEOUT.
      const waited = () => new Promise<void>((resolve) => setTimeout(resolve, 3 * BOUND_MS));
      const out = await withWaitingToolQuery(() => executeReadOnly({ pool }, waiting(30_000)), waited);
      expect(out.rows).toEqual([{ n: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('ends a tool query that gets no answer at its own statement timeout and the bound past it, and says so', async () => {
    const { pool, log } = toolsPool();
    const statementTimeoutMs = 2_000;
    try {
      // Its backend stops answering while the tool's query waits (its BEGIN and settings were answered).
      const failed = await withWaitingToolQuery(
        () => within(engineFailure(executeReadOnly({ pool }, waiting(statementTimeoutMs)))),
        async () => dbSwitch.stallLatest()
      );
      expect(failed).toMatchObject({ type: 'TOOL_TIMEOUT', retryable: true });
      const warned = log.lines().filter((line) => line.level === 'warn');
      const bound = statementTimeoutMs + BOUND_MS;
      expect(warned).toEqual([expect.objectContaining({ pool: 'convengine-tools', queryTimeoutMs: bound })]);
      expect(warned[0]?.msg).toContain(`got no answer within ${bound} ms`);
    } finally {
      await pool.end();
    }
  });

  it('bounds opening a connection to a server that never answers', async () => {
    const { pool } = toolsPool();
    try {
      dbSwitch.set('blackhole');
      const failed = await within(engineFailure(executeReadOnly({ pool }, query('select 1'))), 30_000);
      expect(failed).toMatchObject({ type: 'TOOL_EXECUTION_FAILED', retryable: true });
      expect((failed as Error).message).toMatch(/^Connecting for a SQL tool failed/);
    } finally {
      await pool.end();
    }
  });
});
