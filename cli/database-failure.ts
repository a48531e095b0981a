import type { Pool } from 'pg';
import { isConnectTimeout } from '../db/connection-loss';
import { errorChain } from './error-chain';
import { notMigratedReason } from './not-migrated';

/** The pool a command's failure happened on: its address and connect timeout are in the message. */
export type CommandPool = Pick<Pool, 'query' | 'options'>;

/**
 * Why a command failed on the database, in one line: a database that did not answer in time, one that lacks
 * migrations, or else the error and its causes.
 */
export async function databaseFailure(pool: CommandPool, failure: unknown): Promise<string> {
  return connectTimeoutReason(pool, failure) ?? (await notMigratedReason(pool, failure)) ?? errorChain(failure);
}

/** A failure on the database in one line: a connect timeout in the product's words (below), else the error chain. */
export function databaseError(pool: Pick<Pool, 'options'>, failure: unknown): string {
  return connectTimeoutReason(pool, failure) ?? errorChain(failure);
}

/**
 * The product's words for pg-pool's connect timeout (a database that accepts TCP and never answers: a hung server, a
 * proxy or tunnel with nothing behind it): what timed out, where (without the credentials), after how long, and what
 * to check. pg's own "Connection terminated due to connection timeout: Connection terminated unexpectedly" says none
 * of it. Null for any other failure.
 */
export function connectTimeoutReason(pool: Pick<Pool, 'options'>, failure: unknown): string | null {
  if (!isConnectTimeout(failure)) return null;
  const seconds = (pool.options.connectionTimeoutMillis ?? 0) / 1000;
  return (
    `the database at ${databaseAddress(pool.options.connectionString)} did not answer a connection within ` +
    `${seconds}s: check that PostgreSQL runs at that address and answers (not a proxy, tunnel or firewall that ` +
    'accepts connections and holds them), and that DATABASE_URL names it'
  );
}

/** host:port/database of a connection string, never its user or password. */
export function databaseAddress(connectionString: string | undefined): string {
  if (connectionString === undefined || !URL.canParse(connectionString)) return 'DATABASE_URL';
  const url = new URL(connectionString);
  const host = url.searchParams.get('host') ?? (url.hostname || 'localhost');
  const port = url.searchParams.get('port') ?? (url.port || '5432');
  const database = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : null;
  return `${host}:${port}${database === null ? '' : `/${database}`}`;
}
