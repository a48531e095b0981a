import { randomInt } from 'node:crypto';
import { Client, type Pool } from 'pg';
import { cancellableQuery, cancelStatementsOn } from '../../db/cancellation';
import { createPool } from '../../db/pool';
import { ADMIN_DATABASE_URL } from '../support/database';
import { startKeyMappingPooler, type KeyMappingPooler } from '../support/key-mapping-pooler';

/** Longer than a cancel takes, far shorter than a lock wait that nothing cancels. */
const CANCELLED_WITHIN_MS = 10_000;

/**
 * A statement of the worker's engine pool waiting on a lock ends when the activity it runs for is cancelled (a
 * stopping worker), also behind a pooler that gives its clients process ids of its own, as PgBouncer does.
 */
describe('a statement cancelled by its activity', () => {
  let pooler: KeyMappingPooler;
  let holder: Client;
  let pool: Pool;
  const key = randomInt(1, 2 ** 31 - 1);
  beforeAll(async () => {
    pooler = await startKeyMappingPooler(ADMIN_DATABASE_URL);
    holder = new Client(ADMIN_DATABASE_URL);
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [key]);
  });
  afterAll(async () => {
    // The holder first: a statement that was not cancelled then takes the lock and ends, and the pool can close.
    await holder.end();
    await pool?.end();
    await pooler.stop();
  });

  /** Resolves once a session waits for the advisory lock `key`. */
  async function lockWaiter(): Promise<number> {
    for (;;) {
      const { rows } = await holder.query<{ pid: number }>(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1",
        [key]
      );
      if (rows[0]) return rows[0].pid;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("is cancelled in the server at once, though the pooler's process id is not the server's", async () => {
    const activity = new AbortController();
    pool = createPool(pooler.url, { max: 1 });
    cancelStatementsOn(pool, () => activity.signal);
    const waiting = cancellableQuery(pool, { text: 'SELECT pg_advisory_lock($1)', values: [key] });
    const outcome = waiting.then(
      () => 'took the lock',
      (err: unknown) => err
    );
    const serverPid = await lockWaiter();
    expect([...pooler.given.values()]).toContain(serverPid);
    const reason = new Error('the worker is stopping');
    activity.abort(reason);
    let bound: NodeJS.Timeout | undefined;
    const stillWaiting = new Promise((resolve) => {
      bound = setTimeout(() => resolve(`still waiting after ${CANCELLED_WITHIN_MS} ms`), CANCELLED_WITHIN_MS);
    });
    expect(await Promise.race([outcome, stillWaiting])).toBe(reason);
    clearTimeout(bound);
    const { rows } = await holder.query('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND objid = $1', [
      key,
    ]);
    expect(rows).toEqual([{ n: 0 }]);
    // The cancelled session is discarded: a cancel the server acts on late never reaches the pool's next statement.
    const next = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(next.rows[0]?.pid).not.toBe(serverPid);
  });
});
