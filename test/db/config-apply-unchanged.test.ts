import type { ConfigRows } from '../../core/config/types';
import { applyConfigRows } from '../../db/config/apply';
import { readExactConfigRows } from '../../db/config/exact-rows';
import { readConfigRevision, readConfigRows, snapshotOf } from '../../db/config/load';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(120_000);

const GREETING = 'Hi, how can I help you today?';

/** `config apply` of a set the tables already hold writes nothing (db/config/apply.ts). */
describe('applyConfigRows of the config the tables hold', () => {
  let tdb: TestDatabase;
  /** Each table's row versions (xmin): a row deleted and inserted again has a new one. */
  const rowVersions = async () =>
    (await tdb.pool.query('SELECT xmin::text AS x FROM ce_response UNION ALL SELECT xmin::text FROM ce_rule')).rows;
  const snapshotRows = async () =>
    (await tdb.pool.query('SELECT version, last_served_revision FROM ce_config_snapshot')).rows;
  const greeting = async () =>
    (await tdb.pool.query('SELECT exact_text FROM ce_response WHERE response_id = 1')).rows[0]?.exact_text as string;
  const withGreeting = (rows: ConfigRows, text: string): ConfigRows => ({
    ...rows,
    responses: rows.responses.map((r) => (r.responseId === 1 ? { ...r, exactText: text } : r)),
  });

  beforeEach(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['faq']);
  });
  afterEach(async () => tdb.drop());

  it('writes no row, keeps the revision and the stored snapshots, and names the version in service', async () => {
    const current = await readExactConfigRows(tdb.db);
    const revision = await readConfigRevision(tdb.db);
    const [versions, snapshots] = [await rowVersions(), await snapshotRows()];
    expect(await applyConfigRows(tdb.db, current)).toEqual({ version: snapshotOf(current).version, written: false });
    expect(await readConfigRevision(tdb.db)).toBe(revision);
    expect(await rowVersions()).toEqual(versions);
    expect(await snapshotRows()).toEqual(snapshots);
  });

  it('a set that differs in one column is written, as before', async () => {
    const revision = await readConfigRevision(tdb.db);
    const edited = withGreeting(await readExactConfigRows(tdb.db), 'Hello!');
    expect(await applyConfigRows(tdb.db, edited)).toEqual({ version: snapshotOf(edited).version, written: true });
    expect(await readConfigRevision(tdb.db)).toBeGreaterThan(revision);
    expect(await greeting()).toBe('Hello!');
  });

  it('compares under the config write lock: an edit committed while it waits is replaced, the last writer wins', async () => {
    const before = await readConfigRows(tdb.db);
    const editor = await tdb.pool.connect();
    try {
      await editor.query('BEGIN');
      await editor.query("UPDATE ce_response SET exact_text = 'edited meanwhile' WHERE response_id = 1");
      // The apply of the rows as they were before the edit waits on the revision row the edit holds.
      const applying = applyConfigRows(tdb.db, before);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await editor.query('COMMIT');
      expect((await applying).written).toBe(true);
    } finally {
      editor.release();
    }
    expect(await greeting()).toBe(GREETING);
  });
});
