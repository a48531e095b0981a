/**
 * The API's and the worker's pools are as large as API_DB_POOL_MAX, WORKER_DB_POOL_MAX and WORKER_TOOLS_POOL_MAX say
 * (the defaults 10, 20 and 5 were fixed before): a burst of statements opens that many connections and no more, the
 * rest waiting, and a busy pool's log line (poolStats) names that max.
 */
import type { Pool } from 'pg';
import { openApiDatabase } from '../../api/server';
import { loadEnv } from '../../config/env';
import { poolStats } from '../../db/engine-pool';
import { openToolsPool, openWorkerDatabase } from '../../worker/deps';
import { ADMIN_DATABASE_URL } from '../support/database';

/** Runs `burst` statements of 300 ms at once on `pool` and returns its state while they run. */
async function underBurst(pool: Pool, burst: number): Promise<ReturnType<typeof poolStats>> {
  const sleeps = Array.from({ length: burst }, () => pool.query('SELECT pg_sleep(0.3)'));
  // Once the first statement runs, every connection the pool would open is open or opening.
  await new Promise((resolve) => setTimeout(resolve, 150));
  const during = poolStats(pool);
  await Promise.all(sleeps);
  return during;
}

describe('the pool sizes from the environment', () => {
  const env = loadEnv({ API_DB_POOL_MAX: '3', WORKER_DB_POOL_MAX: '4', WORKER_TOOLS_POOL_MAX: '2' });
  const api = openApiDatabase(ADMIN_DATABASE_URL, env);
  const worker = openWorkerDatabase(ADMIN_DATABASE_URL, env);
  const tools = openToolsPool(ADMIN_DATABASE_URL, env);
  afterAll(async () => {
    await Promise.all([api.close(), worker.close(), tools.end()]);
  });

  it.each([
    ['API_DB_POOL_MAX', () => api.pool, 3],
    ['WORKER_DB_POOL_MAX', () => worker.pool, 4],
    ['WORKER_TOOLS_POOL_MAX', () => tools, 2],
  ] as const)('%s bounds its pool: a burst opens that many connections, the rest wait', async (_name, pool, max) => {
    expect(poolStats(pool()).max).toBe(max);
    const during = await underBurst(pool(), max + 3);
    expect(during).toEqual({ total: max, idle: 0, waiting: 3, max });
  });

  it('keeps the former sizes when unset', async () => {
    const defaults = loadEnv({});
    const handles = [openApiDatabase(ADMIN_DATABASE_URL, defaults), openWorkerDatabase(ADMIN_DATABASE_URL, defaults)];
    const toolsPool = openToolsPool(ADMIN_DATABASE_URL, defaults);
    try {
      expect([...handles.map((h) => poolStats(h.pool).max), poolStats(toolsPool).max]).toEqual([10, 20, 5]);
    } finally {
      await Promise.all([...handles.map((h) => h.close()), toolsPool.end()]);
    }
  });
});
