/**
 * A statement that waited in vain for a pooled connection: busy (503 DATABASE_BUSY) when the database answered the
 * pool's other statements meanwhile, unreachable (503 DATABASE_UNREACHABLE) when it answered none, as when it refuses
 * or drops connections.
 */
import net, { type AddressInfo } from 'node:net';
import { DrizzleQueryError } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { busyPoolOf, isDatabaseBusy, isDatabaseUnreachable } from '../../db/connection-loss';
import { createPool } from '../../db/pool';
import { databaseReadiness } from '../../observability/dependency-checks';
import { ADMIN_DATABASE_URL } from '../support/database';

const failureOf = (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => new Error('the statement did not fail'),
    (err: unknown) => err
  );

describe('a wait for a pooled connection that ran out (db/engine-pool.ts, db/connection-loss.ts)', () => {
  const pools: ReturnType<typeof createPool>[] = [];
  const pool = (connectionTimeoutMillis: number, url = ADMIN_DATABASE_URL) => {
    const created = createPool(url, { max: 1, connectionTimeoutMillis });
    pools.push(created);
    return created;
  };
  /**
   * A pool of one whose connection is `held`, and whose next wait for a connection runs out after `waitMs`: the held one
   * opened with a wait a loaded machine meets (opening one took over 300 ms in CI), the short wait set after.
   */
  const heldPool = async (waitMs: number) => {
    const full = pool(10_000);
    const held = await full.connect();
    full.options.connectionTimeoutMillis = waitMs;
    return { full, held };
  };
  afterAll(async () => {
    for (const p of pools) await p.end();
  });

  it('is busy when the database answered the pool meanwhile, with how full the pool was', async () => {
    const { full, held } = await heldPool(1_000);
    // Gets the connection once it is given back (an answer), and keeps it past the next one's wait.
    const ahead = full.query('SELECT pg_sleep(1.5)');
    const behind = failureOf(full.query('SELECT 1'));
    setTimeout(() => held.release(), 200);
    const err = await behind;
    await ahead;
    expect(err).toMatchObject({ message: 'timeout exceeded when trying to connect' });
    expect(isDatabaseBusy(err)).toBe(true);
    expect(isDatabaseBusy(new DrizzleQueryError('SELECT 1', [], err as Error))).toBe(true);
    expect(busyPoolOf(err)).toEqual({ total: 1, idle: 0, waiting: 0, max: 1 });
    // Still one a step waits out as an outage.
    expect(isDatabaseUnreachable(err)).toBe(true);
  });

  it('is unreachable when the database answered nothing of the pool meanwhile', async () => {
    const { full, held } = await heldPool(300);
    try {
      const err = await failureOf(full.query('SELECT 1'));
      expect(err).toMatchObject({ message: 'timeout exceeded when trying to connect' });
      expect(isDatabaseBusy(err)).toBe(false);
      expect(isDatabaseUnreachable(err)).toBe(true);
    } finally {
      held.release();
    }
  });

  it('a refused connection is unreachable, never busy', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const url = Object.assign(new URL(ADMIN_DATABASE_URL), { hostname: '127.0.0.1', port: String(port) }).toString();
    const err = await failureOf(pool(1_000, url).query('SELECT 1'));
    expect(err).toMatchObject({ code: 'ECONNREFUSED' });
    expect(isDatabaseBusy(err)).toBe(false);
    expect(isDatabaseUnreachable(err)).toBe(true);
  });

  it("reads as `busy` in readiness when the check's deadline passes while the database answers the pool", async () => {
    const full = pool(10_000);
    const held = await full.connect();
    // Each gives the one connection back to the next, in turn: the pool is answered every 300 ms.
    const queue = Array.from({ length: 10 }, () => full.query('SELECT pg_sleep(0.3)'));
    setTimeout(() => held.release(), 100);
    expect(await databaseReadiness(drizzle(full))).toBe('busy');
    await Promise.all(queue);
  });
});
