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
  severity?: unknown;
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

/** Whether `err`, or an error it wraps, is a lost connection. */
export function isConnectionLoss(err: unknown): boolean {
  return inChain(err, lostWith(CONNECTION_ERRNOS, CONNECTION_MESSAGES));
}

/**
 * The server refusing a new session for a while (57P03, already above, covers a server starting or shutting down):
 * too many connections (53300: max_connections or a CONNECTION LIMIT), raised only while connecting, so the statement
 * never ran. A missing database (3D000) or a refused login (class 28) is not here: a configuration error no retry
 * mends, which stays a 500 (api/error-handler.ts's tests), as /readyz and the start log already name it.
 */
const TOO_MANY_CONNECTIONS = '53300';

/**
 * 55000 (object_not_in_prerequisite_state) is also what a statement gets for many ordinary reasons (currval before
 * nextval, a replication slot in use); only as a FATAL, which ends the session, is it the server refusing a session
 * for a database that does not accept connections now (`ALTER DATABASE … ALLOW_CONNECTIONS false`, a restore).
 */
function refusedSession({ code, severity }: ErrorShape): boolean {
  return typeof code === 'string' && (code === TOO_MANY_CONNECTIONS || (code === '55000' && severity === 'FATAL'));
}

/**
 * Failures that say as much of the database but take their time (a socket or connect timeout, no route, a host name
 * that does not resolve, the pool's wait for a connection): a statement is not sent again at once after them.
 */
const UNREACHABLE_ERRNOS = [...CONNECTION_ERRNOS, 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'];
const UNREACHABLE_MESSAGES = [...CONNECTION_MESSAGES, 'timeout exceeded when trying to connect'];

/**
 * Whether a statement failed because the database could not be reached, refused the session or dropped the
 * connection (the API's 503 DATABASE_UNREACHABLE), not because of what it asked: a lost connection, or one that could
 * not be made.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  const lost = lostWith(UNREACHABLE_ERRNOS, UNREACHABLE_MESSAGES);
  return inChain(err, (e) => lost(e) || refusedSession(e));
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
