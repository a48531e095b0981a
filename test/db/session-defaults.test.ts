import { randomUUID } from 'node:crypto';
import { conversationQueries } from '../../api/db-queries';
import { prepareDatabase } from '../../cli/stack/prepare-database';
import { readConfigRows } from '../../db/config/load';
import { schemaState } from '../../db/migrate';
import { openDatabase } from '../../db/pool';
import { createTestDatabase, type TestDatabase } from '../support/database';

/** host:port of a connection string, as failure messages name it. */
function serverOf(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || '5432'}`;
}

/**
 * A DBA's database-level session defaults (ALTER DATABASE … SET) change nothing the engine reads or writes: every
 * engine session pins the settings it depends on (db/session-settings.ts).
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

  it("a DBA's 100 ms idle-in-transaction timeout ends no seeding: start prepares the database", async () => {
    await alterDatabase("idle_in_transaction_session_timeout = '100ms'");
    await prepareDatabase(tdb.url, { packs: ['all'] });
    const seeded = await tdb.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM ce_intent');
    expect(seeded.rows[0]?.n).toBeGreaterThan(0);
  });

  it("the DBA's DateStyle, IntervalStyle and TimeZone change no timestamp the API reads", async () => {
    await alterDatabase("DateStyle = 'SQL, DMY'");
    await alterDatabase("IntervalStyle = 'sql_standard'");
    await alterDatabase("TimeZone = 'Pacific/Chatham'");
    const handle = openDatabase(tdb.url, { max: 1 });
    try {
      const id = randomUUID();
      await handle.pool.query(
        `INSERT INTO ce_conversation (conversation_id, created_at, updated_at)
         VALUES ($1, '2026-03-25 10:15:00+00', '2026-03-26 11:00:00+00')`,
        [id]
      );
      await handle.pool.query(
        `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, created_at)
         VALUES ($1, 1, 'USER_INPUT', '{}', $2, '2026-03-25 10:16:00+00')`,
        [id, `${id}/k`]
      );
      const queries = conversationQueries(handle.db);
      const view = await queries.conversation(id);
      expect([view?.createdAt, view?.updatedAt]).toEqual(['2026-03-25T10:15:00.000Z', '2026-03-26T11:00:00.000Z']);
      const page = await queries.auditsWithin(id, { afterAuditId: 0, limit: 10, maxBytes: 1024, takeFirst: true });
      expect(page.rows.map((a) => a.createdAt)).toEqual(['2026-03-25T10:16:00.000Z']);
      const shown = await handle.pool.query("SELECT now()::text ~ $1 AS utc, (interval '1 day 2 hours')::text AS i", [
        '\\+00$',
      ]);
      expect(shown.rows).toEqual([{ utc: true, i: '1 day 02:00:00' }]);
    } finally {
      await handle.close();
    }
  });

  it('a migration the database refuses fails start in one message: the step, the database, its words, what to check', async () => {
    const readOnly = await createTestDatabase({ migrated: false });
    const noSchema = await createTestDatabase({ migrated: false });
    try {
      await readOnly.pool.query(`ALTER DATABASE ${readOnly.name} SET default_transaction_read_only = on`);
      await noSchema.pool.query('DROP SCHEMA public CASCADE');
      const advice =
        "check that schema public exists in that database, that DATABASE_URL's role may create tables in it, and " +
        'that its sessions may write (not a read-only replica, no default_transaction_read_only set on the database ' +
        'or the role: `\\drds` in psql lists such settings)';
      const failure = (url: string) =>
        prepareDatabase(url).then(
          () => 'migrated',
          (err: Error) => err.message
        );
      const at = (db: TestDatabase) =>
        `migration failed: the database at ${serverOf(db.url)}/${db.name} could not be migrated`;
      expect(await failure(readOnly.url)).toBe(
        `${at(readOnly)}: cannot execute CREATE TABLE in a read-only transaction: ${advice}`
      );
      expect(await failure(noSchema.url)).toBe(`${at(noSchema)}: no schema has been selected to create in: ${advice}`);
    } finally {
      await readOnly.drop();
      await noSchema.drop();
    }
  });
});
