import { type Pool, type PoolConfig, types } from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { EnginePool } from './engine-pool';
import { SessionClient } from './session-client';
import { ENGINE_SESSION, pinSession, sessionNaming, type SessionSettings } from './session-settings';
import * as schema from './schema';

// bigint (int8) columns hold ids and counters that stay far below 2^53; numbers are easier to
// carry through JSON, activity payloads and event history than strings. NUMERIC stays text: SQL
// tools return money and exact decimals as the database formats them ("0.00", not 0).
types.setTypeParser(types.builtins.INT8, (value) => Number(value));

/** The engine database: drizzle over a pg pool (`$client` is the pool, for named prepared statements). */
export type Database = NodePgDatabase<typeof schema> & { $client: Pool };

export interface DbHandle {
  pool: Pool;
  db: Database;
  close(): Promise<void>;
}

/**
 * A pool's options, less the session settings pg would send in the startup packet (its own `options` string too):
 * a pooler refuses or drops them. They go in a SessionSettings, which onConnect sets once the session is open.
 */
export type PoolOptions = Omit<
  PoolConfig,
  'lock_timeout' | 'statement_timeout' | 'idle_in_transaction_session_timeout' | 'options'
>;

/**
 * A pool of sessions that each start with `session` set (ENGINE_SESSION unless told): pg-pool runs onConnect before
 * it hands a new connection out, and discards the connection when it fails. `overrides.application_name` is the name
 * its sessions take when neither the connection string nor PGAPPNAME gives one (sessionNaming).
 */
export function createPool(
  connectionString: string,
  overrides: Partial<PoolOptions> = {},
  session: SessionSettings = ENGINE_SESSION
): Pool {
  const { application_name: name = 'convengine', ...rest } = overrides;
  const pool = new EnginePool({
    Client: SessionClient,
    connectionString,
    ...sessionNaming(name),
    max: 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    // A peer gone without a word (a host down, a dropped NAT entry) ends the socket instead of leaving it open forever.
    keepAlive: true,
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- pg-pool awaits it; @types/pg says void
    onConnect: (client) => pinSession(client, session),
    ...rest,
  });
  // A terminated backend (failover, pg_terminate_backend) surfaces here on idle clients; the pool
  // discards the client, and the next query reconnects. Without a listener Node would crash.
  pool.on('error', () => undefined);
  // A client checked out with pool.connect() (every transaction, SQL tools) has no pool listener:
  // pg emits 'error' on it when the backend goes away, even when the failure also reaches the
  // query in flight, and an unhandled 'error' kills the process. The query (or the next one)
  // still fails, and the pool drops the client when it is released as not queryable.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export function openDatabase(
  connectionString: string,
  overrides: Partial<PoolOptions> = {},
  session: SessionSettings = ENGINE_SESSION
): DbHandle {
  return databaseOn(createPool(connectionString, overrides, session));
}

/** The engine database over `pool` (createPool's), closed with it. */
export function databaseOn(pool: Pool): DbHandle {
  const db = drizzle(pool, { schema });
  return { pool, db, close: () => pool.end() };
}

/**
 * The client-side bound of a statement that the server itself ends after `serverTimeoutMs` (its own statement_timeout,
 * longer than the pool's bound may be): that long, then the pool's query_timeout for its answer to arrive, past which
 * its backend is taken as frozen as for any other statement of the pool. None on a pool with no bound.
 */
export function queryTimeoutPast(pool: Pool, serverTimeoutMs: number): number | undefined {
  const bound = (pool.options as { query_timeout?: number }).query_timeout;
  return bound ? serverTimeoutMs + bound : undefined;
}

export { schema };
