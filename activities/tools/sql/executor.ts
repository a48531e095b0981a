import type { Pool, PoolClient, QueryConfig } from 'pg';
import { cancelledOnAbort, releaseClient } from '../../../db/cancellation';
import { queryTimeoutPast } from '../../../db/pool';
import { QUERY_TIMEOUT_MESSAGE } from '../../../db/session-client';
import { TIME_FORMAT_SESSION } from '../../../db/session-settings';
import { retryOnConnectionLoss } from '../../../db/connection-loss';
import { scrubDatabaseMessage, sqlStateOf } from '../../../db/error-text';
import { EngineError, ErrorType } from '../../../core/errors';
import type { JsonObject } from '../../../core/json';
import { tokenizeSql, type SqlToken } from '../../../core/sql';
import { activityCancellation, cancelledBy } from '../../runtime/activity-context';
import { TOOL_RESULT_TYPES } from './result-types';

/**
 * Executes tool SQL with defense in depth (P4, D20): even if the guardrail were bypassed, the
 * statement runs on the tools role's own pool (a login that can only read the business schemas),
 * inside `BEGIN READ ONLY` with statement, lock and idle timeouts and a pinned search_path, with a
 * row cap and a result-byte cap enforced by the server, and is always rolled back. The session is
 * then reset (`DISCARD ALL`), so nothing a query managed to set or take (a setting, an advisory
 * lock, a prepared statement) outlives it. Values are bound through the extended protocol, which
 * also refuses a second statement.
 */
export const BUSINESS_SCHEMA = 'business';

export interface ReadOnlySqlTarget {
  /** A pool whose login is the tools role (never the engine's pool). */
  pool: Pool;
}

export interface ReadOnlyQuery {
  /** SQL with positional parameters ($1…). */
  text: string;
  values: readonly unknown[];
  maxRows: number;
  statementTimeoutMs: number;
  lockTimeoutMs?: number;
  /** Bytes of rows (as text) returned at most; default 1 MiB. */
  maxResultBytes?: number;
  /** The search_path of the query; default [business]. */
  schemas?: readonly string[];
  /**
   * Cancels the query on the server when it aborts, and the signal's reason is thrown; default the running activity's
   * cancellation (an operator's cancel, a worker shutting down). A slow query must not outlive its cancelled turn.
   */
  signal?: AbortSignal;
}

export interface ReadOnlyResult {
  rows: JsonObject[];
  rowCount: number;
  /** More rows existed than maxRows, or the rows passed maxResultBytes. */
  truncated: boolean;
  truncatedBy: 'ROWS' | 'BYTES' | null;
}

const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;
const DEFAULT_LOCK_TIMEOUT_MS = 1000;
const ROWS_COLUMN = '__ce_result_rows';
const BYTES_COLUMN = '__ce_result_bytes';

/**
 * Forces the extended protocol even without values (pg's `queryMode`, missing from @types/pg): one statement only. Its
 * client-side bound (pg's `query_timeout`, also missing) is `timeoutMs` when given, not the pool's.
 */
function extendedQuery(text: string, values: readonly unknown[], timeoutMs: number | undefined): QueryConfig {
  const config: QueryConfig & { queryMode?: string; query_timeout?: number } = {
    text,
    values: [...values],
    types: TOOL_RESULT_TYPES,
  };
  config.queryMode = 'extended';
  if (timeoutMs !== undefined) config.query_timeout = timeoutMs;
  return config;
}

/** The statement without trailing semicolons and comments, so it can be wrapped in a subquery. */
function trimStatement(sql: string): string {
  let tokens;
  try {
    tokens = tokenizeSql(sql);
  } catch {
    return sql;
  }
  let end = tokens.length;
  while (end > 0) {
    const t = tokens[end - 1] as SqlToken;
    if (t.kind !== 'space' && t.kind !== 'comment' && !(t.kind === 'punct' && t.text === ';')) break;
    end -= 1;
  }
  return tokens
    .slice(0, end)
    .map((t) => t.text)
    .join('');
}

/**
 * The row and byte caps, applied by the server: at most maxRows + 1 rows are produced, and only
 * those whose running size (as text) stays within the byte cap are sent. One row always comes
 * back carrying the number of rows produced, so a cut-off is noticed even when nothing fits.
 * Ordering by the running size keeps the query's own order.
 */
export function cappedSql(text: string, maxRows: number, maxBytes: number): string {
  return `WITH __ce_limited AS MATERIALIZED (SELECT * FROM (\n${trimStatement(text)}\n) AS tool_result LIMIT ${maxRows + 1}),
__ce_sized AS (SELECT l.*, sum(octet_length(ROW(l.*)::text)) OVER (ROWS UNBOUNDED PRECEDING) AS ${BYTES_COLUMN} FROM __ce_limited l)
SELECT m.${ROWS_COLUMN}, s.* FROM (SELECT count(*) AS ${ROWS_COLUMN} FROM __ce_limited) m
LEFT JOIN __ce_sized s ON s.${BYTES_COLUMN} <= ${maxBytes} ORDER BY s.${BYTES_COLUMN}`;
}

async function enterReadOnly(client: PoolClient, query: ReadOnlyQuery): Promise<void> {
  const ms = (value: number) => String(Math.max(1, Math.round(value)));
  await client.query('BEGIN READ ONLY');
  // The time formats too: the role's own (db/tools-role.ts) give way to a setting for the role in that database.
  await client.query(
    `SELECT set_config('statement_timeout', $1, true), set_config('lock_timeout', $2, true),
            set_config('idle_in_transaction_session_timeout', $3, true),
            set_config('search_path', (SELECT string_agg(quote_ident(s), ', ') FROM unnest($4::text[]) AS s), true),
            set_config('DateStyle', $5, true), set_config('IntervalStyle', $6, true), set_config('TimeZone', $7, true)`,
    [
      ms(query.statementTimeoutMs),
      ms(query.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS),
      ms(query.statementTimeoutMs + 5000),
      [...(query.schemas ?? [BUSINESS_SCHEMA])],
      TIME_FORMAT_SESSION.DateStyle,
      TIME_FORMAT_SESSION.IntervalStyle,
      TIME_FORMAT_SESSION.TimeZone,
    ]
  );
}

/**
 * A limit the statement itself reached: its memory (53200), a configured limit such as the tools
 * role's temp_file_limit (53400) or one of PostgreSQL's program limits (class 54). The same query
 * reaches it again, so no attempt is spent on it.
 */
const QUERY_LIMIT_SQLSTATE = /^(53200|53400|54...)$/;
/**
 * What may pass on another attempt: a lost connection or a server shutting a session down (class
 * 08, 57P), a server short of disk or connection slots (the rest of class 53), a serialization
 * failure or deadlock (class 40).
 */
const TRANSIENT_SQLSTATE = /^(08|53|57P|40)/;

/**
 * Maps a database error to a typed engine error with a scrubbed message: what a retry can fix, what
 * it cannot. `statementTimeoutMs` is the query's own, named when it cancels the query.
 */
export function sqlFailure(err: unknown, what: string, statementTimeoutMs?: number): EngineError {
  const code = (err as { code?: unknown }).code;
  const sqlState = sqlStateOf(err);
  const details = { sqlState };
  const text = scrubDatabaseMessage(err, 'the database connection for SQL tools failed');
  const message = `${what} failed: ${text}`;
  if (err instanceof Error && err.message === QUERY_TIMEOUT_MESSAGE) {
    // The tools pool's bound (worker/deps.ts, openToolsPool): its connection is closed; another attempt opens one anew.
    const stalled = 'got no answer from the database in time (a stalled backend or network): its connection was closed';
    return new EngineError(ErrorType.ToolTimeout, `${what} ${stalled}`, { details, cause: err });
  }
  if (code === '57014') {
    const limit = statementTimeoutMs === undefined ? '' : ` of ${statementTimeoutMs} ms`;
    const cancelled = `${what} took longer than its statement timeout${limit} and was cancelled`;
    // The same statement takes as long again: five attempts only made the turn five times slower.
    return new EngineError(ErrorType.ToolTimeout, cancelled, { retryable: false, details, cause: err });
  }
  if (code === '55P03') return new EngineError(ErrorType.ToolTimeout, message, { details, cause: err });
  if (code === '25006' || code === '42501')
    return new EngineError(ErrorType.ToolNotAllowed, message, { details, cause: err });
  if (sqlState !== null && QUERY_LIMIT_SQLSTATE.test(sqlState)) {
    const limited = `${what} was stopped by a database limit: ${text}`;
    return new EngineError(ErrorType.ToolExecutionFailed, limited, { retryable: false, details, cause: err });
  }
  if (sqlState !== null && TRANSIENT_SQLSTATE.test(sqlState)) {
    return new EngineError(ErrorType.ToolExecutionFailed, message, { details, cause: err });
  }
  // Any other SQLSTATE (syntax, unknown column, constraint) is the statement's own: it fails the same way again.
  if (sqlState !== null) {
    return new EngineError(ErrorType.ToolExecutionFailed, message, { retryable: false, details, cause: err });
  }
  return new EngineError(ErrorType.ToolExecutionFailed, message, { details, cause: err });
}

function resultOf(raw: JsonObject[], maxRows: number): ReadOnlyResult {
  const produced = Number(raw[0]?.[ROWS_COLUMN] ?? 0);
  const sent = raw.filter((row) => row[BYTES_COLUMN] !== null && row[BYTES_COLUMN] !== undefined);
  const rows = sent.slice(0, maxRows).map(plainRow);
  const truncatedBy = sent.length < Math.min(produced, maxRows) ? 'BYTES' : produced > maxRows ? 'ROWS' : null;
  return { rows, rowCount: rows.length, truncated: truncatedBy !== null, truncatedBy };
}

export async function executeReadOnly(target: ReadOnlySqlTarget, query: ReadOnlyQuery): Promise<ReadOnlyResult> {
  const maxRows = Math.max(1, Math.floor(query.maxRows));
  const maxBytes = Math.max(1, Math.floor(query.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES));
  const signal = query.signal ?? activityCancellation();
  // The query runs as long as its own statement timeout lets it, then the pool's bound for the server's answer.
  const bound = queryTimeoutPast(target.pool, query.statementTimeoutMs);
  let what = 'Connecting for a SQL tool';
  // Read only, so a query whose connection was lost runs again on a fresh one: a reconnect does
  // not spend one of the tool call's attempts (db/connection-loss.ts).
  const once = async (): Promise<ReadOnlyResult> => {
    signal?.throwIfAborted();
    what = 'Connecting for a SQL tool';
    const client = await target.pool.connect();
    what = 'SQL tool query';
    try {
      await enterReadOnly(client, query);
      const result = await cancelledOnAbort(client, signal, () =>
        client.query<JsonObject>(extendedQuery(cappedSql(query.text, maxRows, maxBytes), query.values, bound))
      );
      return resultOf(result.rows, maxRows);
    } finally {
      await releaseClean(client);
    }
  };
  try {
    return await retryOnConnectionLoss(once);
  } catch (err) {
    // Cancelled: the activity's own reason, not the 57014 the server answers (that reads as a statement timeout).
    if (signal?.aborted) throw cancelledBy(signal);
    throw sqlFailure(err, what, query.statementTimeoutMs);
  }
}

/**
 * Rolls back and resets the session; a client that cannot be reset, or whose statement was cancelled, is discarded,
 * never pooled (releaseClient).
 */
async function releaseClean(client: PoolClient): Promise<void> {
  const clean = await client
    .query('ROLLBACK')
    .then(() => client.query('DISCARD ALL'))
    .then(
      () => true,
      () => false
    );
  releaseClient(client, !clean);
}

/** Dates and big numbers become JSON-friendly values (rows travel through event history). */
function plainRow(row: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
    if (key === ROWS_COLUMN || key === BYTES_COLUMN) continue;
    if (value instanceof Date) out[key] = value.toISOString();
    else if (typeof value === 'bigint') out[key] = value.toString();
    else if (Buffer.isBuffer(value)) out[key] = value.toString('base64');
    else out[key] = value as JsonObject[string];
  }
  return out;
}
