import { DrizzleQueryError } from 'drizzle-orm';
import { DatabaseError } from 'pg';
import { errorMessage } from '../core/errors';
import { cutText } from '../core/text/cut-text';

/**
 * The text of a database error as it may leave the process: shown by a SQL tool to the planner and
 * the API, or carried by a failed step into logs and Temporal's history. PostgreSQL's
 * primary message names the problem ("column \"x\" does not exist", "invalid input syntax for type
 * integer: \"abc\"") and is what lets a model repair its SQL; what it quotes comes from the query's
 * own scope (the tools role reads nothing else). Still, a quoted value is cut short (to `maxQuoted`
 * characters; 0 where nothing quoted may show, as it may be the user's text), DETAIL,
 * HINT, CONTEXT and the query text are never included, connection or authentication failures
 * (hosts, role names) become one generic sentence, and a server short of disk or connections another.
 */
const MAX_QUOTED = 40;
const MAX_MESSAGE = 300;

/** Connection, authentication and shutdown failures: their text names hosts, roles and databases. */
const CONNECTION_SQLSTATE = /^(08|28|3D|57P)/;
/**
 * The server itself short of disk space or connection slots (class 53 but out of memory, 53200, and
 * a configured limit such as temp_file_limit, 53400, which name only the limit): their text names
 * data files and roles.
 */
const SERVER_RESOURCE_SQLSTATE = /^53(?!200|400)/;
const SERVER_RESOURCE_TEXT = 'the database server ran short of disk space or connections';

/**
 * Whether `code` is a SQLSTATE (five digits or capitals, at least one digit) rather than Node's code of a failed
 * socket: a connection lost below SQL carries ECONNRESET, EPIPE, ... in the same `code` property.
 */
function isSqlState(code: string): boolean {
  return /^(?=.*\d)[0-9A-Z]{5}$/.test(code);
}

/** The SQLSTATE of a database error, or null (no code, or Node's code of a failed socket). */
export function sqlStateOf(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && isSqlState(code) ? code : null;
}

export function scrubDatabaseMessage(err: unknown, connectionFailure: string, maxQuoted = MAX_QUOTED): string {
  const code = sqlStateOf(err);
  if (code === null || CONNECTION_SQLSTATE.test(code)) return connectionFailure;
  if (SERVER_RESOURCE_SQLSTATE.test(code)) return `${SERVER_RESOURCE_TEXT} (SQLSTATE ${code})`;
  const first = (errorMessage(err).split('\n')[0] ?? '').trim();
  const quotedCut = first.replace(/"([^"]*)"/g, (_m, inner: string) =>
    inner.length > maxQuoted ? `"${cutText(inner, maxQuoted)}…"` : `"${inner}"`
  );
  const text = quotedCut.length > MAX_MESSAGE ? `${cutText(quotedCut, MAX_MESSAGE)}…` : quotedCut;
  return `${text} (SQLSTATE ${code})`;
}

/**
 * A connection the server refused for what the connection string says, which no retry mends: the database it names
 * does not exist (3D000), or the login was refused (class 28: a wrong password, no such role, no pg_hba.conf entry).
 */
export type ConnectionRefusal = 'DATABASE_MISSING' | 'LOGIN_REFUSED';

/** The refusal `err` (or an error it wraps: drizzle keeps the driver's as `cause`) reports, or null. */
export function connectionRefusalOf(err: unknown): ConnectionRefusal | null {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    const code = sqlStateOf(e);
    if (code === '3D000') return 'DATABASE_MISSING';
    if (code?.startsWith('28')) return 'LOGIN_REFUSED';
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * What the server, or a pooler in front of it, said when it refused or ended a connection (an ErrorResponse, with
 * its SQLSTATE: PgBouncer's `unsupported startup parameter: lock_timeout`, 08P01; a FATAL's reason), for the
 * process's own log, which may name the database and role; null when no error in the chain came from a server (a
 * socket that failed, a timeout). Its first line, cut as MAX_MESSAGE.
 */
export function serverMessageOf(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    const code = sqlStateOf(e);
    if (e instanceof DatabaseError && code !== null) {
      const first = (e.message.split('\n')[0] ?? '').trim();
      return `${first.length > MAX_MESSAGE ? `${cutText(first, MAX_MESSAGE)}…` : first} (SQLSTATE ${code})`;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** What a log line or a step's failure says of each, naming neither the database nor the role (see above). */
const REFUSAL_TEXT: Record<ConnectionRefusal, string> = {
  DATABASE_MISSING: 'the database the connection string names does not exist',
  LOGIN_REFUSED: 'the database refused the login (a wrong password, no such role, or no pg_hba.conf entry)',
};
const CONNECTION_FAILURE_TEXT = 'the database connection failed or the statement could not be sent';

export interface DatabaseErrorText {
  /** "A database statement failed: <first line, nothing quoted> (SQLSTATE xxxxx)". */
  message: string;
  sqlState: string | null;
  /** Node's code of the failed socket (ECONNRESET, ECONNREFUSED) when the connection failed below SQL, else null. */
  systemCode: string | null;
}

/**
 * What may be said of a database error outside the process (log lines, Temporal's history, audit
 * rows), or null when `err` is not one. Never drizzle's message, which quotes the statement and its
 * parameters (the user's text, the session's context, a whole config), nor the server's DETAIL,
 * which quotes key values; in the engine's own statements anything quoted may be the user's text.
 */
export function databaseErrorText(err: unknown): DatabaseErrorText | null {
  const driver = err instanceof DrizzleQueryError ? err.cause : err instanceof DatabaseError ? err : undefined;
  if (driver === undefined && !(err instanceof DrizzleQueryError)) return null;
  const code = (driver as { code?: unknown } | undefined)?.code;
  const sqlState = sqlStateOf(driver);
  const systemCode = sqlState === null && typeof code === 'string' ? code : null;
  const refusal = connectionRefusalOf(driver);
  const text = scrubDatabaseMessage(driver, refusal === null ? CONNECTION_FAILURE_TEXT : REFUSAL_TEXT[refusal], 0);
  return { message: `A database statement failed: ${text}`, sqlState, systemCode };
}
