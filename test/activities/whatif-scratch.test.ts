import { sql } from 'drizzle-orm';
import { inScratchTransaction } from '../../activities/whatif/scratch';
import type { Database } from '../../db/pool';
import { createTestDatabase, type TestDatabase } from '../support/database';

/** The scratch transaction of what-if replay (activities/whatif/scratch.ts), on a real PostgreSQL. */
describe('what-if scratch transaction', () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase({ migrated: false });
    await tdb.pool.query('create table scratch_probe (n int not null)');
  });
  afterAll(async () => tdb.drop());

  const probeCount = async () => Number((await tdb.pool.query('select count(*) n from scratch_probe')).rows[0].n);
  const insertProbe = (db: Pick<Database, 'execute'>, n: number) =>
    db.execute(sql`insert into scratch_probe (n) values (${n})`);
  /** Ends the scratch session from inside, as a failover or an operator's pg_terminate_backend would. */
  const terminateOwnSession = (db: Database) => db.execute(sql`select pg_terminate_backend(pg_backend_pid())`);

  it('rolls back everything, the engine transactions inside included', async () => {
    const seen = await inScratchTransaction(tdb.pool, async (db) => {
      await insertProbe(db, 1);
      await db.transaction(async (tx) => insertProbe(tx, 2));
      await db
        .transaction(async (tx) => {
          await insertProbe(tx, 3);
          tx.rollback();
        })
        .catch(() => undefined);
      return Number((await db.execute(sql`select count(*) n from scratch_probe`)).rows[0]?.['n']);
    });
    expect(seen).toBe(2);
    expect(await probeCount()).toBe(0);
  });

  it('runs the work again from the start on a fresh connection when its own was lost', async () => {
    const pids: number[] = [];
    let runs = 0;
    const result = await inScratchTransaction(tdb.pool, async (db) => {
      runs += 1;
      pids.push(Number((await db.execute(sql`select pg_backend_pid() pid`)).rows[0]?.['pid']));
      await insertProbe(db, runs);
      if (runs === 1) await terminateOwnSession(db);
      return Number((await db.execute(sql`select count(*) n from scratch_probe`)).rows[0]?.['n']);
    });
    expect(runs).toBe(2);
    expect(new Set(pids).size).toBe(2);
    // The second run saw only its own row: the first run's write died with its session.
    expect(result).toBe(1);
    expect(await probeCount()).toBe(0);
    expect((await tdb.pool.query('select 1 one')).rows[0].one).toBe(1);
  });

  it('does not run the work again for any other failure, and gives up after three lost connections', async () => {
    let runs = 0;
    const failing = inScratchTransaction(tdb.pool, async (db) => {
      runs += 1;
      await insertProbe(db, runs);
      await db.execute(sql`select 1/0`);
    });
    await expect(failing).rejects.toMatchObject({ cause: expect.objectContaining({ code: '22012' }) });
    expect(runs).toBe(1);

    runs = 0;
    const lost = inScratchTransaction(tdb.pool, async (db) => {
      runs += 1;
      await terminateOwnSession(db);
    });
    await expect(lost).rejects.toMatchObject({ cause: expect.objectContaining({ code: '57P01' }) });
    expect(runs).toBe(3);
    expect(await probeCount()).toBe(0);
  });
});
