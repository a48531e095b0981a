import { prepareDatabase } from '../../cli/stack/prepare-database';
import { readConfigRows } from '../../db/config/load';
import { schemaState } from '../../db/migrate';
import { openDatabase } from '../../db/pool';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * A DBA's database-level session defaults (ALTER DATABASE … SET) change nothing the engine reads or writes: every
 * engine session pins the settings it depends on (db/pool.ts).
 */
describe('engine sessions under database-level session defaults', () => {
  let tdb: TestDatabase;
  beforeEach(async () => {
    tdb = await createTestDatabase();
  });
  afterEach(async () => tdb.drop());

  /** Sets a default for the sessions opened from now on (the test database's pool has opened some already). */
  const alterDatabase = (setting: string) => tdb.pool.query(`ALTER DATABASE ${tdb.name} SET ${setting}`);

  it('a schema placed first in search_path gets no second set of tables: start migrates, seeds and reads public', async () => {
    await tdb.pool.query('CREATE SCHEMA zz_other');
    await alterDatabase('search_path = zz_other, public');
    await prepareDatabase(tdb.url, { packs: ['faq'] });
    const other = await tdb.pool.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'zz_other'"
    );
    expect(other.rows).toEqual([]);
    const handle = openDatabase(tdb.url, { max: 1 });
    try {
      expect((await handle.pool.query('SELECT current_schema() AS s')).rows).toEqual([{ s: 'public' }]);
      expect((await schemaState(handle.pool)).pending).toEqual([]);
      const seeded = await handle.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM public.ce_intent');
      expect(seeded.rows[0]?.n).toBeGreaterThan(0);
      expect((await readConfigRows(handle.db)).intents).toHaveLength(seeded.rows[0]?.n ?? -1);
    } finally {
      await handle.close();
    }
  });
});
