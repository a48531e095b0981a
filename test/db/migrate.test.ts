import { migrate, readMigrations } from '../../db/migrate';
import { createTestDatabase, type TestDatabase } from '../support/database';

describe('migrations', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('apply to an empty database, then re-apply as a no-op', async () => {
    const all = readMigrations().map((m) => m.name);
    const first = await migrate(tdb.pool);
    expect(first.applied).toEqual(all);
    const second = await migrate(tdb.pool);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toEqual(all);
    const { rows } = await tdb.pool.query(
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 'ce\\_%'"
    );
    expect(rows[0].n).toBeGreaterThanOrEqual(28);
  });
});
