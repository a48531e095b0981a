import { drizzle } from 'drizzle-orm/node-postgres';
import type { Pool, PoolClient } from 'pg';
import { isJsonObject } from '../../core/json';
import { retryOnConnectionLoss } from '../../db/connection-loss';
import { databaseErrorText, sqlStateOf } from '../../db/error-text';
import { schema, type Database } from '../../db/pool';

/**
 * The replay could not run here, whatever the draft: the database refused the scratch writes every replayed turn
 * makes (a hot standby or a read-only transaction, 25006; a login that may only read, 42501; a server short of disk or
 * connections, class 53), or the scratch transaction could not be opened read-write (a standby in recovery, 0A000).
 * Not a difference: each turn would fail the same way under any draft, so no turn is compared.
 */
export class WhatifCannotRunError extends Error {
  constructor(
    message: string,
    readonly sqlState: string
  ) {
    super(`the replay could not run: ${message}`);
    this.name = 'WhatifCannotRunError';
  }
}

const CANNOT_RUN_SQLSTATE = /^(25006|42501|53...)$/;

/**
 * The SQLSTATE `err` reports: the driver's (drizzle keeps it as `cause`), or the one a step's failure carries in its
 * details (activities/runtime/failure.ts: an EngineError's object, an ApplicationFailure's array of them).
 */
function sqlStatesIn(err: unknown): string[] {
  const found: string[] = [];
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    const code = sqlStateOf(e);
    if (code !== null) found.push(code);
    const details: unknown = (e as { details?: unknown }).details;
    for (const detail of Array.isArray(details) ? details : [details]) {
      if (isJsonObject(detail) && typeof detail['sqlState'] === 'string') found.push(detail['sqlState']);
    }
    e = (e as { cause?: unknown }).cause;
  }
  return found;
}

/** `err` as WhatifCannotRunError when the database refused the replay itself (above), else null. */
export function cannotRunError(err: unknown, codes: RegExp = CANNOT_RUN_SQLSTATE): WhatifCannotRunError | null {
  if (err instanceof WhatifCannotRunError) return err;
  const code = sqlStatesIn(err).find((c) => codes.test(c));
  if (code === undefined) return null;
  const message = databaseErrorText(err)?.message ?? (err instanceof Error ? err.message : String(err));
  return new WhatifCannotRunError(message, code);
}

/**
 * A database handle whose every write is rolled back: one connection inside one transaction that
 * is never committed. The engine's own transactions (drizzle's `begin`/`commit`/`rollback`) become
 * savepoints inside it, so nothing a replayed turn writes — conversation, history, audits, config
 * snapshots — outlives the replay or is seen by anyone else.
 */
function savepointClient(client: PoolClient): PoolClient {
  let depth = 0;
  const rewrite = (text: string): string | null => {
    const command = text.trim().toLowerCase();
    if (command === 'begin' || command.startsWith('begin ') || command === 'start transaction') {
      depth += 1;
      return `savepoint ce_whatif_${depth}`;
    }
    if (command === 'commit' || command === 'rollback') {
      if (depth === 0) throw new Error(`what-if scratch session: ${command} outside a transaction`);
      const name = `ce_whatif_${depth}`;
      depth -= 1;
      return command === 'commit' ? `release savepoint ${name}` : `rollback to savepoint ${name}`;
    }
    return null;
  };
  const query = (config: unknown, ...rest: unknown[]): unknown => {
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
    const replaced = typeof text === 'string' ? rewrite(text) : null;
    const next =
      replaced === null ? config : typeof config === 'string' ? replaced : { ...(config as object), text: replaced };
    return (client.query as (...args: unknown[]) => unknown)(next, ...rest);
  };
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'query') return query;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function onceInScratchTransaction<T>(pool: Pool, work: (db: Database) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    // Explicitly read-write: where transactions default to read-only (default_transaction_read_only) the scratch
    // writes are still rolled back; where none may write (a standby in recovery: 0A000) the replay cannot run at all.
    await client.query('BEGIN READ WRITE').catch((err: unknown) => {
      throw cannotRunError(err, /^(0A000|25006|42501)$/) ?? err;
    });
    const db = drizzle(savepointClient(client), { schema }) as unknown as Database;
    return await work(db);
  } finally {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true;
    }
    client.release(broken);
  }
}

/**
 * Runs `work` on a scratch handle and rolls everything back, whatever happens. Since nothing it
 * did survives, `work` lost with its connection (failover, restart, pg_terminate_backend) is run
 * again from the start on a fresh one, up to the tries of an idempotent statement; `work` must
 * therefore build all its state inside (the replay makes its feeds and scratch id per call).
 */
export async function inScratchTransaction<T>(pool: Pool, work: (db: Database) => Promise<T>): Promise<T> {
  return retryOnConnectionLoss(() => onceInScratchTransaction(pool, work));
}
