import type { ClientBase, ClientConfig } from 'pg';

/** Session settings a pool sets on each connection it opens, by name. */
export type SessionSettings = Readonly<Record<string, string>>;

/** The schema the engine's tables live in: migrations create them there, and every engine session reads them there. */
export const ENGINE_SCHEMA = 'public';

/**
 * How every session the engine opens formats dates, times and intervals: the forms drizzle's and pg-types' parsers
 * read. Under another DateStyle (`SQL, DMY`) they swapped day and month, or failed once the day passed 12.
 */
export const TIME_FORMAT_SESSION = { DateStyle: 'ISO', IntervalStyle: 'postgres', TimeZone: 'UTC' } as const;

/**
 * What every engine session runs with, whatever the database's or the role's defaults (a DBA's `ALTER DATABASE … SET`):
 * the engine's schema only, so the migrator never creates a second, empty set of tables in the first schema of a
 * search_path that every command then reads; and the time formats its parsers read (TIME_FORMAT_SESSION).
 */
export const ENGINE_SESSION: SessionSettings = { search_path: ENGINE_SCHEMA, ...TIME_FORMAT_SESSION };

/**
 * The sessions of the engine's own commands that hold a transaction while they work between its statements
 * (migrate, seed, `config apply`, `convengine start`'s preparation): no idle-in-transaction timeout. A DBA's
 * `ALTER ROLE … SET idle_in_transaction_session_timeout = '100ms'` ended their session mid-transaction (`read
 * ECONNRESET`, `Failed query: rollback`); the API's and the worker's sessions keep the DBA's.
 */
export const MAINTENANCE_SESSION: SessionSettings = { ...ENGINE_SESSION, idle_in_transaction_session_timeout: '0' };

/**
 * What the SQL tools' sessions start with: their role pins their search_path (db/tools-role.ts) and the executor
 * each query's settings (activities/tools/sql/executor.ts); its `DISCARD ALL` after each query would undo a
 * connection's own.
 */
export const TOOLS_SESSION: SessionSettings = {};

/**
 * The worker's engine sessions: ENGINE_SESSION, and how long a step's statement waits on a lock (lock_timeout, in
 * ms). Pinned with the rest once the session is open, never sent as a startup parameter: PgBouncer refuses a session
 * whose startup packet carries one it does not track (`unsupported startup parameter: lock_timeout`, 08P01).
 */
export function workerSession(lockTimeoutMs: number): SessionSettings {
  return { ...ENGINE_SESSION, lock_timeout: String(lockTimeoutMs) };
}

/** Sets `settings` for the session of a connection just opened, in one round trip. */
export async function pinSession(client: ClientBase, settings: SessionSettings): Promise<void> {
  const names = Object.keys(settings);
  if (names.length === 0) return;
  const calls = names.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, false)`);
  await client.query(
    `SELECT ${calls.join(', ')}`,
    names.flatMap((name) => [name, settings[name]])
  );
}

/**
 * How a ConvEngine session names itself in pg_stat_activity and the migration lock's "held by" message (they showed ""
 * for all): `name` as pg's fallback_application_name, so that pg's own order decides, as libpq's does: the connection
 * string's `?application_name=` first, then PGAPPNAME (how an operator names a process), then `name`. pg sends the
 * winner as the application_name startup parameter, which poolers pass on.
 */
export function sessionNaming(name: string): Pick<ClientConfig, 'fallback_application_name'> {
  return { fallback_application_name: name };
}
