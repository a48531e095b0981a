import { Client, Pool, type PoolClient } from 'pg';
import { checkPooling, poolingSeen, type PoolerSession } from '../../cli/doctor/pooling';
import { ADMIN_DATABASE_URL } from '../support/database';

/**
 * A client of a transaction-mode pooler, over real server sessions: each statement outside a transaction runs on
 * whichever server session the pool hands out (pg-pool, as PgBouncer, gives the last one returned), and a transaction
 * keeps its one until it ends.
 */
function transactionPooled(servers: Pool): PoolerSession {
  let held: PoolClient | null = null;
  return {
    async query(text) {
      const server = held ?? (await servers.connect());
      try {
        const result = await server.query(text);
        held = text === 'BEGIN' ? server : text === 'COMMIT' || text === 'ROLLBACK' ? null : held;
        return result;
      } finally {
        if (held !== server) server.release();
      }
    },
    end: async () => undefined,
  };
}

describe('doctor: connection pooling', () => {
  it('says PostgreSQL itself keeps each connection on its server session', async () => {
    expect(await checkPooling(ADMIN_DATABASE_URL)).toEqual({
      check: 'pooling',
      level: 'ok',
      message: 'each connection keeps its server session',
    });
  });

  it('sees a transaction-mode pooler: a server session one client left goes to another', async () => {
    const servers = new Pool({ connectionString: ADMIN_DATABASE_URL, max: 2 });
    try {
      expect(await poolingSeen(transactionPooled(servers), transactionPooled(servers))).toBe('transaction');
    } finally {
      await servers.end();
    }
  });

  it('sees session pooling as such: two clients that own their server sessions', async () => {
    const clients = [new Client(ADMIN_DATABASE_URL), new Client(ADMIN_DATABASE_URL)];
    await Promise.all(clients.map((c) => c.connect()));
    try {
      expect(await poolingSeen(clients[0] as Client, clients[1] as Client)).toBe('session');
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });
});
