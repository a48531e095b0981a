import type { Pool } from 'pg';
import { createPool, databaseOn, type DbHandle } from '../db/pool';
import { ENGINE_SESSION, type SessionSettings } from '../db/session-settings';
import type { Logger } from './logger';

/**
 * Logs each statement of `pool` that its query_timeout ended (db/session-client.ts closes that connection): the request got
 * 503, or the step's attempt failed and is retried, and the operator learns which pool met a stalled backend or a lock
 * (docs/runbook.md, "Requests hang" and §12.2), and how long that statement waited: the pool's bound, or the one it
 * set for itself (a SQL tool's query: its statement timeout and the pool's bound past it, db/pool.ts
 * queryTimeoutPast), which the pool's alone understated.
 */
export function warnOnQueryTimeouts(pool: Pool, logger: Logger): void {
  // ConvEngine's name for the pool (db/session-settings.ts sessionNaming), whatever name PGAPPNAME or the URL gives its sessions.
  const name = pool.options.fallback_application_name ?? pool.options.application_name ?? 'convengine';
  pool.on('query-timeout' as 'error', (_err: Error, bound: unknown) => {
    const ms = typeof bound === 'number' ? bound : undefined;
    logger.warn(
      { pool: name, queryTimeoutMs: ms },
      `a statement of the ${name} pool got no answer within ${ms} ms: its connection was closed; look for a ` +
        'stalled backend or a lock in pg_stat_activity'
    );
  });
}

/** A pool a process names, sizes and bounds: API_DB_* for the API's, WORKER_DB_* for the worker's and SQL tools'. */
export interface BoundedPoolOptions {
  /** Its sessions' application_name when neither the URL nor PGAPPNAME gives one (`convengine-api`, …). */
  name: string;
  max: number;
  /** How long one statement waits for the server's answer before it fails and its connection is closed; 0: no bound. */
  queryTimeoutMs: number;
}

/**
 * A pool whose statements are bounded (db/session-client.ts): one that gets no answer within `queryTimeoutMs` (a
 * frozen backend, a lock) fails as an unreachable database, its connection is destroyed, never reused, and `logger`
 * is told, naming the pool. Opening a connection is bounded too (createPool's connectionTimeoutMillis).
 */
export function createBoundedPool(
  databaseUrl: string,
  options: BoundedPoolOptions,
  logger?: Logger,
  session: SessionSettings = ENGINE_SESSION
): Pool {
  const { name, max, queryTimeoutMs } = options;
  const bound = queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {};
  const pool = createPool(databaseUrl, { max, application_name: name, ...bound }, session);
  if (logger) warnOnQueryTimeouts(pool, logger);
  return pool;
}

/** The engine database over a bounded pool (createBoundedPool): the API's and the worker's. */
export function openBoundedDatabase(
  databaseUrl: string,
  options: BoundedPoolOptions,
  logger?: Logger,
  session: SessionSettings = ENGINE_SESSION
): DbHandle {
  return databaseOn(createBoundedPool(databaseUrl, options, logger, session));
}
