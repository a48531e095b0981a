import { Client, type ClientBase, type ClientConfig, Pool, type PoolClient, type PoolConfig, types } from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { markDatabaseBusy, markSessionRefusal, type PoolStats } from './connection-loss';
import { sqlStateOf } from './error-text';
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
 * A client that marks what failed while it opened its session (a refusal, not a statement's failure), so
 * isDatabaseUnreachable knows it without reading the server's localised severity.
 */
class SessionClient extends Client {
  /** Told of a statement its query_timeout ended, and when it was sent (performance.now()): set by its pool. */
  onQueryTimeout?: (err: Error, since: number) => void;
  /** The ErrorResponse with which the server ended this session between statements (sessionEndOf). */
  private endedBy: Error | null = null;

  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    this.on('error', (err: Error) => {
      if (sqlStateOf(err) !== null) this.endedBy ??= err;
    });
  }

  /**
   * pg's query, whose failure on a session the server ended between statements carries the server's reason as its
   * cause: pg emits that FATAL ("terminating connection due to administrator command", an idle_session_timeout) as
   * an 'error' event on the client, and the next statement fails with only "Connection terminated unexpectedly".
   */
  override query(...args: unknown[]): never {
    const run = (super.query as (...a: unknown[]) => unknown).bind(this);
    const since = performance.now();
    const failed = (err: unknown): unknown => this.withSessionEnd(this.endTimedOut(err, since));
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      const callback = last as (err: unknown, ...rest: unknown[]) => void;
      return run(...args.slice(0, -1), (err: unknown, ...rest: unknown[]) =>
        callback(err ? failed(err) : err, ...rest)
      ) as never;
    }
    const result = run(...args);
    if (!(result instanceof Promise)) return result as never;
    return result.catch((err: unknown) => Promise.reject(failed(err))) as never;
  }

  /**
   * A statement its query_timeout gave up on: pg answers the caller but leaves the statement running on this
   * connection, and the next statement queued behind it (a transaction's ROLLBACK, the next user of a client handed
   * back to the pool). The session is ended, so the pool drops the client (released or idle, one not queryable is
   * destroyed) and opens a fresh one; onQueryTimeout tells the pool, which marks the error busy or not.
   */
  private endTimedOut(err: unknown, since: number): unknown {
    if (!(err instanceof Error) || err.message !== QUERY_TIMEOUT_MESSAGE) return err;
    // Not queryable at once (pg-pool reads _queryable as it takes a client back): the socket closes a tick later.
    const client = this as unknown as { _queryable: boolean; connection: { stream: { destroy(): void } } };
    client._queryable = false;
    client.connection.stream.destroy();
    this.onQueryTimeout?.(err, since);
    return err;
  }

  private withSessionEnd(err: unknown): unknown {
    if (this.endedBy === null || !(err instanceof Error) || err === this.endedBy || err.cause !== undefined) return err;
    err.cause = this.endedBy;
    return err;
  }

  override connect(): Promise<Client>;
  override connect(callback: (err: Error) => void): void;
  override connect(callback?: (err: Error) => void): Promise<Client> | void {
    if (!callback) return super.connect().catch((err: unknown) => Promise.reject(markSessionRefusal(err)));
    super.connect((err: Error) => callback(markSessionRefusal(err)));
  }
}

/** pg's error for a statement that did not answer within its client's query_timeout. */
export const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

/** pg-pool's error when no connection of a full pool was free within connectionTimeoutMillis. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

type ConnectCallback = (
  err: Error | undefined,
  client: PoolClient | undefined,
  done: (release?: unknown) => void
) => void;

/**
 * A pool that knows when its database last answered (a connection opened, a client given back without an error). A
 * wait for a connection that timed out meanwhile was on a busy pool, not on an unreachable database: pg-pool says the
 * same words when every connection runs statements the server answers and when every one is still trying to reach a
 * server that drops packets.
 */
class EnginePool extends Pool {
  lastAnswerAt = -Infinity;

  constructor(config: PoolConfig) {
    super(config);
    const answered = () => (this.lastAnswerAt = performance.now());
    this.on('connect', answered);
    this.on('release', (err: unknown) => err || answered());
    // A statement that timed out while the pool's others answered waited on a busy server (a lock, a stalled
    // backend), not on an unreachable one. 'query-timeout' on the pool: for the owner's log line.
    this.on('connect', (client) => {
      (client as unknown as SessionClient).onQueryTimeout = (err, since) => {
        markBusySince(this, err, since);
        this.emit('query-timeout', err);
      };
    });
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<PoolClient> | void {
    const since = performance.now();
    const classify = (err: Error): Error => (err.message === POOL_WAIT_TIMEOUT ? markBusySince(this, err, since) : err);
    if (!callback) return super.connect().catch((err: Error) => Promise.reject(classify(err)));
    super.connect((err, client, done) => callback(err && classify(err), client, done));
  }
}

/** How full `pool` is now. */
export function poolStats(pool: Pool): PoolStats {
  const { totalCount: total, idleCount: idle, waitingCount: waiting } = pool;
  return { total, idle, waiting, max: pool.options.max ?? 10 };
}

/**
 * Marks `err`, a statement's wait that ran out, as one on a busy database when `pool`'s database answered another
 * statement since `since` (performance.now()); returns it. Unmarked, it reads as the database unreachable.
 */
export function markBusySince<E>(pool: Pool, err: E, since: number): E {
  return pool instanceof EnginePool && pool.lastAnswerAt >= since ? markDatabaseBusy(err, poolStats(pool)) : err;
}

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

/**
 * A pool's options, less the session settings pg would send in the startup packet (its own `options` string too):
 * a pooler refuses or drops them. They go in a SessionSettings, which onConnect sets once the session is open.
 */
export type PoolOptions = Omit<
  PoolConfig,
  'lock_timeout' | 'statement_timeout' | 'idle_in_transaction_session_timeout' | 'options'
>;

/** Sets `settings` for the session of a connection just opened, in one round trip. */
async function pinSession(client: ClientBase, settings: SessionSettings): Promise<void> {
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
  const pool = createPool(connectionString, overrides, session);
  const db = drizzle(pool, { schema });
  return { pool, db, close: () => pool.end() };
}

export { schema };
