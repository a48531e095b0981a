import { checkSearchIndexes } from '../../cli/doctor/search-indexes';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(60_000);

async function dropRole(role: string): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
  } finally {
    await admin.end();
  }
}

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
      message: "the console search's 5 trigram indexes are there, valid and as migrate builds them",
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

  it('warns, naming the index, how it differs and the fix, when one of that name is not what migrate builds', async () => {
    tdb = await createTestDatabase();
    // One built before 0031 folded the text with ce_search_fold: lower() only, which the search no longer asks for.
    await tdb.pool.query('DROP INDEX ce_history_user_input_trgm_idx');
    await tdb.pool.query(
      'CREATE INDEX ce_history_user_input_trgm_idx ON ce_conversation_history USING gin (lower(user_input) gin_trgm_ops)'
    );
    // One of that name made by hand on another table, and the right one on its own table.
    await tdb.pool.query('DROP INDEX ce_conversation_id_trgm_idx');
    await tdb.pool.query('CREATE INDEX ce_conversation_id_trgm_idx ON ce_audit (stage)');
    const finding = await checkSearchIndexes(tdb.url);
    expect(finding).toMatchObject({ check: 'search-indexes', level: 'warn' });
    expect(finding.message).toMatch(
      /^console search \(q\) has an index that is not what migrate builds, which the search does not use \(it reads whole tables, slow on a large database\): ce_conversation_id_trgm_idx is ON another table USING btree \(stage\), migrate builds it ON ce_conversation USING gin \(ce_search_fold\(\(conversation_id\)::text\) \S*gin_trgm_ops\); ce_history_user_input_trgm_idx is ON ce_conversation_history USING gin \(lower\(user_input\) \S*gin_trgm_ops\), migrate builds it ON ce_conversation_history USING gin \(ce_search_fold\(user_input\) \S*gin_trgm_ops\)\. Drop it \(DROP INDEX CONCURRENTLY ce_conversation_id_trgm_idx; DROP INDEX CONCURRENTLY ce_history_user_input_trgm_idx;\) and run `convengine migrate` again, which builds it as it should be$/
    );
  });

  it('warns, not fails, when a role without TEMP cannot compare the definitions (the indexes being there)', async () => {
    tdb = await createTestDatabase();
    const role = `doctor_no_temp_${process.pid}`;
    const database = new URL(tdb.url).pathname.slice(1);
    await tdb.pool.query(`DROP ROLE IF EXISTS ${role}`);
    await tdb.pool.query(`CREATE ROLE ${role} LOGIN`);
    try {
      await tdb.pool.query(`REVOKE TEMPORARY ON DATABASE ${database} FROM PUBLIC`);
      const url = new URL(tdb.url);
      url.username = role;
      const finding = await checkSearchIndexes(url.toString());
      expect(finding).toMatchObject({ check: 'search-indexes', level: 'warn' });
      expect(finding.message).toMatch(
        /^the console search's trigram indexes are there and valid, but their definitions could not be compared with what migrate builds \(it needs a temporary table\): .*permission denied/
      );
    } finally {
      await tdb.drop();
      tdb = undefined;
      await dropRole(role);
    }
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
