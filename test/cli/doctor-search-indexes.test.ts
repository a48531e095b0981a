import { checkSearchIndexes } from '../../cli/doctor/search-indexes';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(60_000);

/**
 * `convengine doctor`'s search-indexes finding on a real PostgreSQL: the console search's trigram indexes
 * (db/search-indexes.ts), which `migrate` builds where it can and says once when it cannot, and which a DBA may drop
 * or a failed build leave invalid afterwards.
 */
describe("doctor: the console search's trigram indexes", () => {
  let tdb: TestDatabase | undefined;
  afterEach(async () => {
    await tdb?.drop();
    tdb = undefined;
  });

  it('is ok on a migrated database, where migrate built them', async () => {
    tdb = await createTestDatabase();
    expect(await checkSearchIndexes(tdb.url)).toEqual({
      check: 'search-indexes',
      level: 'ok',
      message: "the console search's 5 trigram indexes are there and valid",
    });
  });

  it('warns, naming the index and the fix, when one was dropped or left invalid', async () => {
    tdb = await createTestDatabase();
    await tdb.pool.query('DROP INDEX ce_history_reply_trgm_idx');
    // What a CREATE INDEX CONCURRENTLY that failed leaves behind.
    await tdb.pool.query(
      "UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'ce_audit_user_input_trgm_idx'::regclass"
    );
    expect(await checkSearchIndexes(tdb.url)).toEqual({
      check: 'search-indexes',
      level: 'warn',
      message:
        'console search (q) has no trigram index (ce_audit_user_input_trgm_idx, ce_history_reply_trgm_idx missing ' +
        'or invalid: dropped, or a build that failed or is under way): it works, but reads whole tables, slow on a ' +
        'large database. Run `convengine migrate` again',
    });
  });

  it('warns, saying who may create it, when pg_trgm is not created in the database', async () => {
    tdb = await createTestDatabase();
    await tdb.pool.query('DROP EXTENSION pg_trgm CASCADE');
    expect(await checkSearchIndexes(tdb.url)).toMatchObject({
      level: 'warn',
      message: expect.stringContaining(
        '(the pg_trgm extension is not created in this database): it works, but reads whole tables, slow on a ' +
          'large database. Run, as the database owner or a superuser (who may create the extension), ' +
          '`convengine migrate` again'
      ),
    });
  });

  it('fails, saying why, when the database cannot be reached', async () => {
    const finding = await checkSearchIndexes('postgres://postgres@127.0.0.1:1/none');
    expect(finding).toMatchObject({ check: 'search-indexes', level: 'fail' });
    expect(finding.message).toMatch(/^cannot read the console search's indexes: /);
  });
});
