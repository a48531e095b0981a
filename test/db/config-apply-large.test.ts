import { getTableColumns } from 'drizzle-orm';
import type { ConfigRows } from '../../core/config/types';
import { applyConfigRows } from '../../db/config/apply';
import { readConfigRows } from '../../db/config/load';
import * as t from '../../db/schema';
import { seedPacks } from '../../db/seed';
import { PG_MAX_PARAMETERS, insertBatches } from '../../db/seed/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(120_000);

/** 10,000 copies of the pack's first ce_verbose row: 130,000 parameters as one INSERT, twice what PostgreSQL binds. */
const EXTRA = 10_000;

function withManyVerboses(rows: ConfigRows, priorityOfLast = 100): ConfigRows {
  const [first] = rows.verboses;
  if (!first) throw new Error('the seed packs have no ce_verbose row');
  const extra = Array.from({ length: EXTRA }, (_, i) => ({
    ...first,
    verboseId: 900_000 + i,
    priority: i === EXTRA - 1 ? priorityOfLast : 100,
  }));
  return { ...rows, verboses: [...rows.verboses, ...extra] };
}

/** `config apply` of a table whose single INSERT would bind more than 65,535 parameters. */
describe('applyConfigRows on a table too large for one statement', () => {
  let tdb: TestDatabase;
  const verboseCount = async () =>
    Number((await tdb.pool.query('SELECT count(*) AS n FROM ce_verbose')).rows[0].n as string);

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
  });
  afterAll(async () => tdb.drop());

  it('cuts the rows into statements of at most 65,535 parameters', () => {
    const columns = Object.keys(getTableColumns(t.ceVerbose)).length;
    const batches = insertBatches(
      t.ceVerbose,
      Array.from({ length: EXTRA }, (_, i) => i)
    );
    expect(batches.flat()).toEqual(Array.from({ length: EXTRA }, (_, i) => i));
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) expect(batch.length * columns).toBeLessThanOrEqual(PG_MAX_PARAMETERS);
    expect(batches[0]?.length).toBe(Math.floor(PG_MAX_PARAMETERS / columns));
  });

  it('writes every row, and applies the same large set again (upsert and delete of 10,000 ids)', async () => {
    const before = await verboseCount();
    const rows = withManyVerboses(await readConfigRows(tdb.db));
    await applyConfigRows(tdb.db, rows);
    expect(await verboseCount()).toBe(before + EXTRA);
    await applyConfigRows(tdb.db, rows);
    expect(await verboseCount()).toBe(before + EXTRA);
    // Back to the packs: 10,000 rows deleted in the same statement that keeps the others.
    const packs = await readConfigRows(tdb.db);
    await applyConfigRows(tdb.db, { ...packs, verboses: packs.verboses.filter((v) => v.verboseId < 900_000) });
    expect(await verboseCount()).toBe(before);
  });

  it('stays all or nothing: a row PostgreSQL refuses in the last statement leaves none of the earlier ones', async () => {
    const before = await verboseCount();
    const rows = withManyVerboses(await readConfigRows(tdb.db), 2 ** 40);
    await expect(applyConfigRows(tdb.db, rows)).rejects.toThrow();
    expect(await verboseCount()).toBe(before);
  });
});
