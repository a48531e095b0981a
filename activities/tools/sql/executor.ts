import type { Pool, PoolClient, QueryConfig } from 'pg';
import { EngineError, ErrorType, errorMessage } from '../../../core/errors';
import type { JsonObject } from '../../../core/json';
import { tokenizeSql, type SqlToken } from '../../../core/sql';

/**
 * Executes tool SQL with defense in depth (P4): even if the guardrail were bypassed, the
 * statement runs inside `BEGIN READ ONLY` with a `statement_timeout`, as a role that can only
 * read the business schema, with a row cap, and is always rolled back. Values are bound through
 * the extended protocol, which also refuses a second statement.
 *
 * Two ways to get the read-only role: a pool whose login is that role (TOOLS_DATABASE_URL), or
 * the app pool plus `SET LOCAL ROLE convengine_tools_ro` inside the transaction.
 */
export const TOOLS_ROLE = 'convengine_tools_ro';
export const BUSINESS_SCHEMA = 'business';

export interface ReadOnlySqlTarget {
  pool: Pool;
  /** True when the pool already logs in as the read-only role. */
  dedicatedRole: boolean;
}

export interface ReadOnlyQuery {
  /** SQL with positional parameters ($1…). */
  text: string;
  values: readonly unknown[];
  maxRows: number;
  statementTimeoutMs: number;
}

export interface ReadOnlyResult {
  rows: JsonObject[];
  rowCount: number;
  /** More rows existed than maxRows. */
  truncated: boolean;
}

/** Forces the extended protocol even without values (pg's `queryMode`, missing from @types/pg): one statement only. */
function extendedQuery(text: string, values: readonly unknown[]): QueryConfig {
  const config: QueryConfig & { queryMode?: string } = { text, values: [...values] };
  config.queryMode = 'extended';
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

async function enterReadOnly(client: PoolClient, target: ReadOnlySqlTarget, timeoutMs: number): Promise<void> {
  await client.query('BEGIN READ ONLY');
  await client.query("SELECT set_config('statement_timeout', $1, true)", [String(Math.max(1, Math.round(timeoutMs)))]);
  if (!target.dedicatedRole) await client.query(`SET LOCAL ROLE ${TOOLS_ROLE}`);
  await client.query("SELECT set_config('search_path', $1, true)", [BUSINESS_SCHEMA]);
}

/** Maps a database error to a typed engine error: what a retry can fix, what it cannot. */
export function sqlFailure(err: unknown, what: string): EngineError {
  const code = (err as { code?: unknown }).code;
  const message = `${what} failed: ${errorMessage(err)}`;
  const details = { sqlState: typeof code === 'string' ? code : null };
  if (code === '57014')
    return new EngineError(ErrorType.ToolTimeout, message, { retryable: true, details, cause: err });
  if (code === '25006' || code === '42501') {
    return new EngineError(ErrorType.ToolNotAllowed, message, { retryable: false, details, cause: err });
  }
  if (typeof code === 'string' && /^(08|53|57P|40)/.test(code)) {
    return new EngineError(ErrorType.ToolExecutionFailed, message, { retryable: true, details, cause: err });
  }
  if (typeof code === 'string') return new EngineError(ErrorType.ToolExecutionFailed, message, { details, cause: err });
  return new EngineError(ErrorType.ToolExecutionFailed, message, { retryable: true, details, cause: err });
}

export async function executeReadOnly(target: ReadOnlySqlTarget, query: ReadOnlyQuery): Promise<ReadOnlyResult> {
  const maxRows = Math.max(1, query.maxRows);
  let client: PoolClient;
  try {
    client = await target.pool.connect();
  } catch (err) {
    throw sqlFailure(err, 'Connecting for a SQL tool');
  }
  try {
    await enterReadOnly(client, target, query.statementTimeoutMs);
    const capped = `SELECT * FROM (\n${trimStatement(query.text)}\n) AS tool_result LIMIT ${maxRows + 1}`;
    const result = await client.query<JsonObject>(extendedQuery(capped, query.values));
    const truncated = result.rows.length > maxRows;
    const rows = truncated ? result.rows.slice(0, maxRows) : result.rows;
    return { rows: rows.map(plainRow), rowCount: rows.length, truncated };
  } catch (err) {
    throw sqlFailure(err, 'SQL tool query');
  } finally {
    // A client whose rollback failed is broken; release(true) discards it instead of pooling it.
    const clean = await client.query('ROLLBACK').then(
      () => true,
      () => false
    );
    client.release(!clean);
  }
}

/** Dates and big numbers become JSON-friendly values (rows travel through event history). */
function plainRow(row: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
    if (value instanceof Date) out[key] = value.toISOString();
    else if (typeof value === 'bigint') out[key] = value.toString();
    else if (Buffer.isBuffer(value)) out[key] = value.toString('base64');
    else out[key] = value as JsonObject[string];
  }
  return out;
}
