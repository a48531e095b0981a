import { checkSearchCollation } from '../../cli/doctor/database';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(60_000);

/**
 * `convengine doctor`'s search-collation finding on a real PostgreSQL: the console's text search folds case with ICU's
 * root collation (db/search-collation.ts), which a server built without ICU, or a database in an encoding ICU does not
 * support, lacks. A server without ICU is simulated by a database whose catalog has no ICU collation, as such a
 * server's has none.
 */
describe('doctor: the collation of the console text search', () => {
  let tdb: TestDatabase | undefined;
  afterEach(async () => {
    await tdb?.drop();
    tdb = undefined;
  });

  it('is ok where PostgreSQL has ICU', async () => {
    tdb = await createTestDatabase({ migrated: false });
    expect(await checkSearchCollation(tdb.url)).toEqual({
      check: 'search-collation',
      level: 'ok',
      message: 'collation "und-x-icu" (ICU) is there',
    });
  });

  it('warns, naming the cause and the fix, on a server built without ICU', async () => {
    tdb = await createTestDatabase({ migrated: false });
    await tdb.pool.query(`DO $$ DECLARE c record; BEGIN
      FOR c IN SELECT n.nspname, l.collname FROM pg_collation l JOIN pg_namespace n ON n.oid = l.collnamespace
        WHERE l.collprovider = 'i' LOOP
        EXECUTE format('DROP COLLATION %I.%I', c.nspname, c.collname);
      END LOOP; END $$`);
    expect(await checkSearchCollation(tdb.url)).toEqual({
      check: 'search-collation',
      level: 'warn',
      message:
        'PostgreSQL has no collation "und-x-icu" for this database, which the console\'s text search (q) uses: ' +
        'the server was built without ICU. ' +
        'Run a PostgreSQL built with ICU (the PGDG packages and the official Docker images are)',
    });
  });

  it('warns on a database whose encoding ICU does not support (SQL_ASCII)', async () => {
    tdb = await createTestDatabase({ migrated: false, sqlAscii: true });
    expect(await checkSearchCollation(tdb.url)).toMatchObject({
      level: 'warn',
      message: expect.stringContaining(
        "ICU has no collation for the database's encoding SQL_ASCII. Create the database with ENCODING 'UTF8'"
      ),
    });
  });

  it('warns with the statement that creates it again when only the collation was dropped', async () => {
    tdb = await createTestDatabase({ migrated: false });
    await tdb.pool.query('DROP COLLATION pg_catalog."und-x-icu"');
    expect(await checkSearchCollation(tdb.url)).toMatchObject({
      level: 'warn',
      message: expect.stringContaining(
        `it was dropped. Create it again: CREATE COLLATION "und-x-icu" (provider = icu, locale = 'und')`
      ),
    });
  });

  it('fails, saying why, when the database cannot be reached', async () => {
    const finding = await checkSearchCollation('postgres://postgres@127.0.0.1:1/none');
    expect(finding).toMatchObject({ check: 'search-collation', level: 'fail' });
    expect(finding.message).toMatch(/^cannot check collation "und-x-icu": /);
  });
});
