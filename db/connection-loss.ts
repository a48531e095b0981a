/**
 * A statement that failed because its connection went away (failover, restart,
 * pg_terminate_backend), not because of what it asked. Such a failure says nothing about the next
 * connection, so an idempotent statement may be sent again at once on a fresh one.
 */

/** SQLSTATE 57P01–57P03 (the server shut the session down) and class 08 (connection exception). */
const CONNECTION_SQLSTATE = /^(57P0[123]|08...)$/;

/** What node-postgres reports when the socket closed or the pooled client is already broken. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

const CONNECTION_ERRNOS = ['ECONNRESET', 'EPIPE', 'ECONNREFUSED'];

interface ErrorShape {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** Whether `err`, or an error it wraps (drizzle's "Failed query" keeps the driver's as `cause`), matches. */
function inChain(err: unknown, matches: (e: ErrorShape) => boolean): boolean {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    if (matches(e as ErrorShape)) return true;
    e = (e as ErrorShape).cause;
  }
  return false;
}

/** A lost connection, or (with the longer lists) one that could not be made. */
function lostWith(errnos: readonly string[], messages: readonly string[]): (e: ErrorShape) => boolean {
  return ({ code, message }) =>
    (typeof code === 'string' && (CONNECTION_SQLSTATE.test(code) || errnos.includes(code))) ||
    (typeof message === 'string' && messages.some((m) => message.startsWith(m)));
}

/**
 * pg-pool's error when a connection was not made within connectionTimeoutMillis. It starts "Connection terminated"
 * (and wraps the socket's own "Connection terminated unexpectedly"), but no connection was lost: a database that
 * accepts TCP and never answers would make each fresh try wait the whole timeout again.
 */
const CONNECT_TIMEOUT_MESSAGE = 'Connection terminated due to connection timeout';
const connectTimedOut = ({ message }: ErrorShape): boolean => message === CONNECT_TIMEOUT_MESSAGE;

/** Whether `err`, or an error it wraps, is pg-pool's: no connection was made within connectionTimeoutMillis. */
export function isConnectTimeout(err: unknown): boolean {
  return inChain(err, connectTimedOut);
}

/** Whether `err`, or an error it wraps, is a lost connection (not one that timed out being made). */
export function isConnectionLoss(err: unknown): boolean {
  return inChain(err, lostWith(CONNECTION_ERRNOS, CONNECTION_MESSAGES)) && !isConnectTimeout(err);
}

/**
 * Errors raised while a session was being opened (db/session-client.ts marks them): the server refused this process a
 * session (too many connections 53300, a database not accepting connections 55000, one that does not exist 3D000, a
 * refused login, class 28, a server starting up 57P03) or TLS failed, so no statement ran. Known by where they were
 * raised, not by SQLSTATE and severity: 55000 and 3D000 are also what an ordinary statement gets (currval before
 * nextval, DROP DATABASE of a missing one), and the severity pg reports (`FATAL`) is the server's localised word
 * (lc_messages), while the unlocalised one (the protocol's V field) is one pg does not read.
 */
const sessionRefusals = new WeakSet<object>();

/** Marks `err` as raised while opening a session; returns it. */
export function markSessionRefusal<E>(err: E): E {
  if (typeof err === 'object' && err !== null) sessionRefusals.add(err);
  return err;
}

const refusedSession = (e: ErrorShape): boolean => sessionRefusals.has(e);

/**
 * Failures that say as much of the database but take their time (a socket or connect timeout, no route, a host name
 * that does not resolve, the pool's wait for a connection): a statement is not sent again at once after them.
 */
const UNREACHABLE_ERRNOS = [...CONNECTION_ERRNOS, 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'];
// 'Query read timeout': pg's, for a statement past its query_timeout (db/session-client.ts ends that session).
const UNREACHABLE_MESSAGES = [...CONNECTION_MESSAGES, 'timeout exceeded when trying to connect', 'Query read timeout'];

/**
 * Whether a statement failed because the database could not be reached, refused the session or dropped the
 * connection (the API's 503 DATABASE_UNREACHABLE, or DATABASE_BUSY when isDatabaseBusy), not because of what it
 * asked: a lost connection, or one that could not be made. A session refused for a wrong DATABASE_URL (no such database, a refused login) is one too: the
 * prerequisite check that refuses a message and /readyz read any failure to open a session as `unreachable`, so every
 * route answers it alike.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  const lost = lostWith(UNREACHABLE_ERRNOS, UNREACHABLE_MESSAGES);
  return inChain(err, (e) => lost(e) || refusedSession(e));
}

/** How full a pool was when a statement waited on it in vain: what the log of a busy database shows. */
export interface PoolStats {
  /** Connections open or opening, of at most `max`. */
  total: number;
  idle: number;
  /** Statements waiting for a connection. */
  waiting: number;
  max: number;
}

/**
 * Errors of a statement that got no pooled connection, or no answer, in time while the database answered the pool's
 * other statements meanwhile (db/engine-pool.ts marks them): the pool is saturated or the server slow, not unreachable.
 */
const busyPools = new WeakMap<object, PoolStats>();

/**
 * What a busy database is, in the words of every text that names it (the readiness warning and OpenAPI, the 503's
 * message, the log line): one wording, as the two waits busyPools marks read alike to an operator.
 */
export const DATABASE_BUSY_MEANING = 'it answers, but a statement got no free pooled connection, or no answer, in time';

/** Marks `err` as a wait on a busy pool (`stats`: the pool then); returns it. */
export function markDatabaseBusy<E>(err: E, stats: PoolStats): E {
  if (typeof err === 'object' && err !== null) busyPools.set(err, stats);
  return err;
}

/** The pool's state when `err`, or an error it wraps, was a wait on a busy pool; null for any other failure. */
export function busyPoolOf(err: unknown): PoolStats | null {
  let stats: PoolStats | null = null;
  inChain(err, (e) => (stats = busyPools.get(e) ?? null) !== null);
  return stats;
}

/**
 * Whether a statement failed because the database was busy (the API's 503 DATABASE_BUSY): it answered, but not this
 * statement in time. One of isDatabaseUnreachable's failures too, so a step waits it out as it waits out an outage.
 */
export function isDatabaseBusy(err: unknown): boolean {
  return busyPoolOf(err) !== null;
}

/** Tries of one idempotent statement: the first and up to two on fresh connections. */
const CONNECTION_TRIES = 3;

/**
 * Runs an idempotent statement, sending it again on another pooled connection when its connection
 * was lost. Every other failure, and a loss on the last try, is thrown unchanged: the caller's
 * retry policy (a Temporal activity's) still decides about a database that stays down. Only for
 * statements that are safe to apply twice: the first may have committed before the socket closed.
 */
export async function retryOnConnectionLoss<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (err) {
      if (attempt >= CONNECTION_TRIES || !isConnectionLoss(err)) throw err;
    }
  }
}
