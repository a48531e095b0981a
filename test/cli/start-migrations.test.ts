import { prepareDatabase } from '../../cli/stack/prepare-database';
import { readMigrations } from '../../db/migrate';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * S40 D3: `convengine start` on an existing database applies a release's migrations; it says so as `convengine
 * migrate` does (each name and the counts) instead of changing the schema silently.
 */
describe('convengine start: the migrations its database preparation applies', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb.drop());

  it("names a migration the database lacked and prints migrate's counts; then that nothing was left", async () => {
    const names = readMigrations().map((m) => m.name);
    const last = names[names.length - 1] ?? '';
    // The last migration only replaces a function and a trigger: applied again, it changes nothing else.
    await tdb.pool.query('DELETE FROM ce_schema_migrations WHERE name = $1', [last]);
    const lines: string[] = [];
    await prepareDatabase(tdb.url, { packs: [] }, { log: (line) => lines.push(line) });
    expect(lines).toEqual([`applied ${last}`, `1 migration(s) applied, ${names.length - 1} already applied`]);

    lines.length = 0;
    await prepareDatabase(tdb.url, { packs: [] }, { log: (line) => lines.push(line) });
    expect(lines).toEqual([`0 migration(s) applied, ${names.length} already applied`]);
  });
});
