import type { Pool } from 'pg';
import type { Logger } from './logger';

/**
 * Logs each statement of `pool` that its query_timeout ended (db/pool.ts closes that connection): the request got
 * 503, and the operator learns which pool met a stalled backend or a lock (docs/runbook.md, "Requests hang").
 */
export function warnOnQueryTimeouts(pool: Pool, logger: Logger): void {
  // ConvEngine's name for the pool (db/pool.ts sessionNaming), whatever name PGAPPNAME or the URL gives its sessions.
  const name = pool.options.fallback_application_name ?? pool.options.application_name ?? 'convengine';
  const ms = (pool.options as { query_timeout?: number }).query_timeout;
  pool.on('query-timeout' as 'error', () =>
    logger.warn(
      { pool: name, queryTimeoutMs: ms },
      `a statement of the ${name} pool got no answer within ${ms} ms: its connection was closed; look for a ` +
        'stalled backend or a lock in pg_stat_activity'
    )
  );
}
