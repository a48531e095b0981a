import { loadModule, parseSync } from 'libpg-query';
import type { SqlParser } from '../../../core/sql';

/**
 * PostgreSQL's own parser (libpg_query compiled to WASM) for the SQL guardrail. Loading the WASM
 * module is I/O, so it happens here, once per process; core/sql only receives the parse function.
 */
let loading: Promise<SqlParser> | null = null;

export function loadSqlParser(): Promise<SqlParser> {
  loading ??= loadModule().then(() => ({ parse: (sql: string) => parseSync(sql) }));
  return loading;
}
