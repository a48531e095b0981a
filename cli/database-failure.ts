import type { Pool } from 'pg';
import { isConnectTimeout, isDatabaseUnreachable } from '../db/connection-loss';
import { databaseAddress } from '../db/address';
import { sqlStateOf } from '../db/error-text';
import { ENGINE_SCHEMA } from '../db/session-settings';
import { shownText } from '../core/text/one-line-text';
import { rawErrorChain } from './error-chain';
import { notMigratedReason } from './not-migrated';

/** The pool a command's failure happened on: its address and connect timeout are in the message. */
export type CommandPool = Pick<Pool, 'query' | 'options'>;

/**
 * Why a command failed on the database, in one line: a database that did not answer in time, one that lacks
 * migrations, or else the error and its causes.
 */
export async function databaseFailure(pool: CommandPool, failure: unknown): Promise<string> {
  const reason = connectTimeoutReason(pool, failure) ?? (await notMigratedReason(pool, failure));
  return shownText(reason ?? rawErrorChain(failure));
}

/** A failure on the database in one line: a connect timeout in the product's words (below), else the error chain. */
export function databaseError(pool: Pick<Pool, 'options'>, failure: unknown): string {
  return shownText(rawDatabaseError(pool, failure));
}

/** databaseError as the errors wrote it, controls and all (rawErrorChain): for JSON, or a line shown whole. */
export function rawDatabaseError(pool: Pick<Pool, 'options'>, failure: unknown): string {
  return connectTimeoutReason(pool, failure) ?? rawErrorChain(failure);
}

/**
 * Why migrating failed, in one line (`convengine migrate`, and `convengine start`'s migration step): which database
 * (without the credentials), PostgreSQL's own words, and what to check. PostgreSQL's alone ("cannot execute CREATE
 * TABLE in a read-only transaction", "no schema has been selected to create in") said neither that it was the
 * migration nor where.
 */
export function migrationFailure(pool: Pick<Pool, 'options'>, failure: unknown): string {
  const timeout = connectTimeoutReason(pool, failure);
  if (timeout !== null) return shownText(timeout);
  const where = `the database at ${databaseAddress(pool.options.connectionString)} could not be migrated`;
  return shownText(`${where}: ${rawErrorChain(failure)}${migrationAdvice(failure)}`);
}

function migrationAdvice(failure: unknown): string {
  if (isDatabaseUnreachable(failure))
    return ': check that PostgreSQL runs at that address and that DATABASE_URL names it and a login it accepts';
  // The engine's own refusals (a changed migration, an unsafe tools role) say what to do themselves.
  if (!causes(failure).some((e) => sqlStateOf(e) !== null)) return '';
  return (
    `: check that schema ${ENGINE_SCHEMA} exists in that database, that DATABASE_URL's role may create tables in ` +
    'it, and that its sessions may write (not a read-only replica, no default_transaction_read_only set on the ' +
    'database or the role: `\\drds` in psql lists such settings)'
  );
}

function causes(failure: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = failure; e !== undefined && chain.length < 8; e = e instanceof Error ? e.cause : undefined)
    chain.push(e);
  return chain;
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
