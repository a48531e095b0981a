import { drizzle } from 'drizzle-orm/node-postgres';
import type { Pool, PoolClient } from 'pg';
import { retryOnConnectionLoss } from '../../db/connection-loss';
import { schema, type Database } from '../../db/pool';

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
    await client.query('BEGIN');
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
