import { Client } from 'pg';
import { rawErrorChain } from '../error-chain';
import { sessionNaming } from '../../db/session-settings';
import type { Finding } from './finding';

/** One connection as the engine's clients see it: what the pooler gives a client, or PostgreSQL's own session. */
export interface PoolerSession {
  query(text: string): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
}

/** What a session the database gives the engine is: its own server session for its life, or one the pooler shares. */
export type PoolingSeen = 'session' | 'transaction';

async function backendPid(session: PoolerSession): Promise<number> {
  const { rows } = await session.query('SELECT pg_backend_pid() AS pid');
  return (rows[0] as { pid: number }).pid;
}

/**
 * Whether the server sessions behind `first` outlive its statements, as the engine needs: `first` reads its backend,
 * `second` opens a transaction (so it holds a server session for the transaction's length) and reads its own, and
 * `first` reads its backend again. A transaction-mode pooler hands the server session `first` just left to `second`
 * (PgBouncer gives the last one used: LIFO) or gives `first` another one; neither can happen while each client owns a
 * server session (PostgreSQL itself, or session pooling). So `transaction` is certain; `session` means none was seen
 * (a pooler handing out server sessions round-robin may hide it).
 */
export async function poolingSeen(first: PoolerSession, second: PoolerSession): Promise<PoolingSeen> {
  const before = await backendPid(first);
  await second.query('BEGIN');
  try {
    const other = await backendPid(second);
    const after = await backendPid(first);
    return other === before || after !== before ? 'transaction' : 'session';
  } finally {
    await second.query('ROLLBACK');
  }
}

export const SESSION_POOLING_ONLY =
  'the engine needs session pooling (PgBouncer pool_mode = session): its named prepared statements, pinned ' +
  'session settings and migration lock live in the server session; see docs/operations.md, "Connection poolers"';

/** `convengine doctor`'s `pooling` finding on DATABASE_URL: fails when a transaction- or statement-mode pooler is seen. */
export async function checkPooling(databaseUrl: string): Promise<Finding> {
  const open = async (): Promise<Client> => {
    const client = new Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: 5_000,
      ...sessionNaming('convengine-doctor'),
    });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
  const clients: Client[] = [];
  try {
    clients.push(await open(), await open());
    const seen = await poolingSeen(clients[0] as Client, clients[1] as Client);
    if (seen === 'session')
      return { check: 'pooling', level: 'ok', message: 'each connection keeps its server session' };
    return {
      check: 'pooling',
      level: 'fail',
      message: `a transaction-mode pooler shares server sessions: ${SESSION_POOLING_ONLY}`,
    };
  } catch (err) {
    // PgBouncer's statement mode refuses the transaction itself.
    return {
      check: 'pooling',
      level: 'fail',
      message: `cannot hold a transaction on one connection (${rawErrorChain(err)}): ${SESSION_POOLING_ONLY}`,
    };
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}
