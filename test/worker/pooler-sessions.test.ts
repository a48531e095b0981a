import { Client } from 'pg';
import { openWorkerDatabase } from '../../worker/deps';
import { ADMIN_DATABASE_URL } from '../support/database';

/**
 * What PgBouncer lets through in a startup packet (its defaults): any other parameter refuses the session with
 * `unsupported startup parameter` (08P01), so the worker could not connect through it at all.
 */
const POOLER_STARTUP_PARAMETERS = ['user', 'database', 'application_name', 'client_encoding', 'replication'];

describe("the worker's engine sessions through a connection pooler", () => {
  // A statement bound too: pg keeps query_timeout on the client, and sends nothing of it.
  const env = { WORKER_DB_LOCK_TIMEOUT_MS: 1234, WORKER_DB_POOL_MAX: 20, WORKER_DB_QUERY_TIMEOUT_MS: 30_000 };
  const handle = openWorkerDatabase(ADMIN_DATABASE_URL, env);
  afterAll(() => handle.close());

  it('send no session setting in the startup packet, which PgBouncer refuses', () => {
    // pg's own: what Client.connect sends as the startup message (not in @types/pg).
    const client = new Client(handle.pool.options) as Client & { getStartupConf(): Record<string, unknown> };
    const startup = client.getStartupConf();
    const sent = Object.keys(startup).filter((name) => startup[name] !== undefined);
    expect(sent.filter((name) => !POOLER_STARTUP_PARAMETERS.includes(name))).toEqual([]);
  });

  it('still wait on a lock at most WORKER_DB_LOCK_TIMEOUT_MS: pinned once the session is open', async () => {
    const { rows } = await handle.pool.query<{ lock_timeout: string }>('SHOW lock_timeout');
    expect(rows).toEqual([{ lock_timeout: '1234ms' }]);
  });
});
