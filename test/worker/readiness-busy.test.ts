/**
 * The worker's /readyz on a busy database (its pool saturated while the database answers): 200, `database: "busy"`
 * and a warning, as the API's (test/api/database-busy.test.ts). Every replica on the database is as busy: a 503 would
 * take them all out of rotation at once. A database that does not answer stays 503.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import { createPool } from '../../db/pool';
import { DATABASE_BUSY_WARNING } from '../../observability/dependency-checks';
import { silentLogger } from '../../observability/logger';
import type { PrerequisiteStatus } from '../../observability/prerequisite-problems';
import { readinessReply, startProbeServer, type ProbeServer } from '../../observability/probe-server';
import { workerProbeHandlers } from '../../worker/readiness';
import { ADMIN_DATABASE_URL } from '../support/database';

type Args = Parameters<typeof workerProbeHandlers>;

/** The worker's probe handlers over `db`, a Temporal that answers and prerequisites that are met. */
function handlers(db: unknown) {
  const ready: PrerequisiteStatus = { database: 'ok', temporal: 'ok', problem: null, warnings: {} };
  const resources = {
    wired: { deps: { db } },
    connection: {
      withDeadline: <T>(_deadline: number, call: () => Promise<T>) => call(),
      workflowService: { getSystemInfo: async () => ({}) },
    },
    prerequisites: { status: async () => ready },
  } as unknown as Args[1];
  const run = { env: {}, prerequisiteCacheMs: 0 } as unknown as Args[0];
  const state = { worker: { getState: () => 'RUNNING' }, starting: 'starting' } as unknown as Args[2];
  return workerProbeHandlers(run, resources, state, {} as Args[3]);
}

async function readyz(probe: ProbeServer): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${probe.url}/readyz`);
  return { status: res.status, body: await res.json() };
}

describe("the worker's /readyz on a busy database", () => {
  const pool = createPool(ADMIN_DATABASE_URL, { max: 1, connectionTimeoutMillis: 10_000 });
  let probe: ProbeServer;
  beforeAll(async () => {
    const { metrics, readiness } = handlers(drizzle(pool));
    probe = await startProbeServer({ host: '127.0.0.1', port: 0, metrics, readiness, logger: silentLogger() });
  });
  afterAll(async () => {
    await probe?.close();
    await pool.end();
  });

  it('answers 200 with database "busy" and a warning while the pool is saturated and the database answers', async () => {
    expect(await readyz(probe)).toEqual({
      status: 200,
      body: { status: 'ready', checks: { database: 'ok', temporal: 'ok', worker: 'ok' } },
    });
    const held = await pool.connect();
    // Each gives the one connection back to the next, in turn: the database answers the pool every 300 ms.
    const queue = Array.from({ length: 10 }, () => pool.query('SELECT pg_sleep(0.3)'));
    setTimeout(() => held.release(), 100);
    const busy = await readyz(probe);
    await Promise.all(queue);
    expect(busy).toEqual({
      status: 200,
      body: {
        status: 'ready',
        checks: { database: 'busy', temporal: 'ok', worker: 'ok' },
        warnings: { database: DATABASE_BUSY_WARNING },
      },
    });
  });
});

describe('readinessReply', () => {
  it('is 503 for an unreachable database, and for a busy one beside a check that fails', () => {
    expect(readinessReply({ checks: { database: 'unreachable', temporal: 'ok' } }).statusCode).toBe(503);
    expect(readinessReply({ checks: { database: 'busy', temporal: 'unreachable' } })).toEqual({
      statusCode: 503,
      body: {
        status: 'not ready',
        checks: { database: 'busy', temporal: 'unreachable' },
        warnings: { database: DATABASE_BUSY_WARNING },
      },
    });
  });

  it("keeps a busy check's other warning, and names every busy pool (convengine start's workerDatabase)", () => {
    const newer = 'migrated by a newer build (0099_future.sql)';
    expect(
      readinessReply({ checks: { database: 'busy', workerDatabase: 'busy' }, warnings: { database: newer } })
    ).toEqual({
      statusCode: 200,
      body: {
        status: 'ready',
        checks: { database: 'busy', workerDatabase: 'busy' },
        warnings: { database: `${newer}; ${DATABASE_BUSY_WARNING}`, workerDatabase: DATABASE_BUSY_WARNING },
      },
    });
  });
});
