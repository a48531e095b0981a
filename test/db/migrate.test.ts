import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { MIGRATIONS_DIR, migrate, readMigrations, schemaState } from '../../db/migrate';
import { MigrationStatementError } from '../../db/migrate-outside-transaction';
import { SEARCH_INDEX_NAMES } from '../../db/search-indexes';
import { claimTurn } from '../../db/repositories/turn-request';
import * as schema from '../../db/schema';
import { createTestDatabase, type TestDatabase } from '../support/database';

const drizzleTables: PgTable[] = Object.values(schema).flatMap((value) => (is(value, PgTable) ? [value] : []));

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

  it('schemaState reads, without writing, what a never-migrated, an up-to-date and a partly migrated database lack', async () => {
    const bare = await createTestDatabase({ migrated: false });
    try {
      const all = readMigrations();
      expect(await schemaState(bare.pool)).toEqual({ pending: all, changed: [], appliedCount: 0, unknown: [] });
      const { rows } = await bare.pool.query("SELECT to_regclass('ce_schema_migrations') AS t");
      expect(rows[0].t).toBeNull();
      await migrate(bare.pool);
      expect(await schemaState(bare.pool)).toEqual({ pending: [], changed: [], appliedCount: all.length, unknown: [] });
      // A newer build's migration: unknown here; a superseded one this build records (0018) is not.
      await bare.pool.query("INSERT INTO ce_schema_migrations (name, checksum) VALUES ('0020_future.sql', 'x')");
      expect((await schemaState(bare.pool)).unknown).toEqual(['0020_future.sql']);
      expect((await migrate(bare.pool)).unknown).toEqual(['0020_future.sql']);
      await bare.pool.query("DELETE FROM ce_schema_migrations WHERE name = '0020_future.sql'");
      // An upgrade deployed without `convengine migrate`: the newest migration is missing.
      const newest = all[all.length - 1]!;
      await bare.pool.query('DELETE FROM ce_schema_migrations WHERE name = $1', [newest.name]);
      expect((await schemaState(bare.pool)).pending.map((m) => m.name)).toEqual([newest.name]);
      const first = all[0]!;
      await bare.pool.query("UPDATE ce_schema_migrations SET checksum = 'edited' WHERE name = $1", [first.name]);
      expect((await schemaState(bare.pool)).changed).toEqual([first.name]);
    } finally {
      await bare.drop();
    }
  });

  it('match the drizzle schema: same tables, columns and nullability', async () => {
    const { rows } = await tdb.pool.query<{ table_name: string; column_name: string; is_nullable: string }>(
      "SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'"
    );
    const inDatabase = new Map<string, Map<string, boolean>>();
    for (const r of rows) {
      const columns = inDatabase.get(r.table_name) ?? new Map<string, boolean>();
      columns.set(r.column_name, r.is_nullable === 'NO');
      inDatabase.set(r.table_name, columns);
    }
    // Every migrated table has a drizzle mirror (the migrator's own bookkeeping table excepted).
    const migratedTables = [...inDatabase.keys()].filter((n) => n !== 'ce_schema_migrations').sort();
    expect(drizzleTables.map(getTableName).sort()).toEqual(migratedTables);
    for (const table of drizzleTables) {
      const name = getTableName(table);
      const expected = Object.values(getTableColumns(table)).map((c) => [c.name, c.notNull] as const);
      const actual = inDatabase.get(name);
      expect({ table: name, exists: actual !== undefined }).toEqual({ table: name, exists: true });
      expect({ table: name, columns: [...(actual ?? new Map()).entries()].sort() }).toEqual({
        table: name,
        columns: [...expected].sort(),
      });
    }
  });

  it('store the large values a turn writes with LZ4, and store and read them back', async () => {
    const { rows } = await tdb.pool.query<{ column: string; compression: string }>(
      `SELECT c.relname || '.' || a.attname AS column, a.attcompression AS compression
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE c.relname IN ('ce_audit', 'ce_conversation', 'ce_conversation_history', 'ce_llm_call_log', 'ce_payload_claim')
          AND a.attcompression <> ''`
    );
    // The server these tests run on (Debian's PostgreSQL 15) is built with LZ4.
    expect(Object.fromEntries(rows.map((r) => [r.column, r.compression]))).toEqual({
      'ce_audit.payload_json': 'l',
      'ce_conversation.context_json': 'l',
      'ce_conversation_history.assistant_output': 'l',
      'ce_llm_call_log.prompt_text': 'l',
      'ce_llm_call_log.user_context': 'l',
      'ce_llm_call_log.response_text': 'l',
      'ce_payload_claim.body': 'l',
    });
    const big = { context: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, `value ${i}`])) };
    const conversation = '00000000-0000-4000-8000-000000000015';
    await tdb.pool.query('INSERT INTO ce_conversation (conversation_id, context_json) VALUES ($1, $2)', [
      conversation,
      big,
    ]);
    const stored = await tdb.pool.query<{ method: string | null; value: unknown }>(
      'SELECT pg_column_compression(context_json) AS method, context_json AS value FROM ce_conversation WHERE conversation_id = $1',
      [conversation]
    );
    expect(stored.rows[0]).toEqual({ method: 'lz4', value: big });
  });

  it('0017 keeps the order of snapshots stored before it: their created_at is when they were last served', async () => {
    await beforeMigration('0017', async (older) => {
      await older.pool.query(
        `INSERT INTO ce_config_snapshot (version, rows_json, created_at)
         VALUES ('aaaaaaaaaaaaaaaa', '{}', '2024-01-01T00:00:00Z'), ('bbbbbbbbbbbbbbbb', '{}', '2024-02-01T00:00:00Z')`
      );
      await migrate(older.pool);
      const { rows } = await older.pool.query(
        'SELECT version, last_served_revision::int AS revision, last_served_at = created_at AS backfilled FROM ce_config_snapshot ORDER BY version'
      );
      expect(rows).toEqual([
        { version: 'aaaaaaaaaaaaaaaa', revision: 0, backfilled: true },
        { version: 'bbbbbbbbbbbbbbbb', revision: 0, backfilled: true },
      ]);
    });
  });

  it('0019 makes an Idempotency-Key unique across conversations, keeping the newest of earlier duplicates', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((x) => `${x.repeat(8)}-0000-4000-8000-000000000000`) as [
      string,
      string,
      string,
    ];
    await beforeMigration('0019', async (older) => {
      await older.pool.query(
        `INSERT INTO ce_turn_request (conversation_id, idempotency_key, turn_number, workflow_id, created_at) VALUES
           ($1, 'shared', 1, 'turn-a-1', '2024-01-01T00:00:00Z'), ($2, 'shared', 4, 'turn-b-4', '2024-02-01T00:00:00Z'),
           ($1, 'own', 2, 'turn-a-2', '2024-01-02T00:00:00Z')`,
        [a, b]
      );
      await migrate(older.pool);
      const { rows } = await older.pool.query(
        'SELECT idempotency_key AS key, workflow_id AS workflow FROM ce_turn_request ORDER BY 1'
      );
      expect(rows).toEqual([
        { key: 'own', workflow: 'turn-a-2' },
        { key: 'shared', workflow: 'turn-b-4' },
      ]);
      const claim = { idempotencyKey: 'own', turnNumber: 1, workflowId: 'turn-c-1', requestHash: null };
      expect(await claimTurn(older.db, { ...claim, conversationId: c })).toBe(false);
      expect(await claimTurn(older.db, { ...claim, idempotencyKey: 'fresh', conversationId: c })).toBe(true);
    });
  });
});

describe('migrations marked -- migrate: no-transaction', () => {
  const key0018 = '68b96915d0c3740e355bb7b4efb71478ca86152343137e7b9ed7394eeeb12c84';

  it('0019 builds the key index concurrently, valid, and records the 0018 it replaces for older builds', async () => {
    await beforeMigration('0019', async (older) => {
      const report = await migrate(older.pool);
      expect(report.applied).toEqual([
        '0019_turn_request_key_unique_concurrently.sql',
        '0020_audit_turn_index.sql',
        '0021_audit_user_input_index.sql',
        '0022_payload_claim_conversation.sql',
        '0023_retired_conversation.sql',
        '0024_conversation_erasure.sql',
        '0025_config_changed_notify.sql',
        '0026_deployment_binding.sql',
        '0027_retired_conversation_guard.sql',
        '0028_conversation_updated_index.sql',
        '0029_console_search_text.sql',
        '0030_console_search_fold.sql',
        '0031_console_search_fold_indexes.sql',
        '0032_audit_parked_call_index.sql',
        '0033_audit_parked_call_statistics.sql',
      ]);
      expect(await indexValidity(older, 'ce_turn_request_key_idx')).toEqual([true]);
      expect(await indexValidity(older, 'ce_audit_turn_idx')).toEqual([true]);
      expect(await indexValidity(older, 'ce_audit_user_input_idx')).toEqual([true]);
      expect(await indexValidity(older, 'ce_conversation_updated_idx')).toEqual([true]);
      expect(await indexValidity(older, 'ce_audit_parked_call_idx')).toEqual([true]);
      // 0033 creates it on PostgreSQL 14 and later (this server); an older one goes without.
      const statistics = await older.pool.query(
        "SELECT 1 FROM pg_statistic_ext WHERE stxname = 'ce_audit_parked_call_stats'"
      );
      expect(statistics.rowCount).toBe(1);
      // The console search's trigram indexes (db/search-indexes.ts): built on a database migrated before them too.
      expect(report.searchIndexes).toEqual([]);
      for (const name of SEARCH_INDEX_NAMES) expect(await indexValidity(older, name)).toEqual([true]);
      const { rows } = await older.pool.query("SELECT checksum FROM ce_schema_migrations WHERE name LIKE '0018%'");
      expect(rows).toEqual([{ checksum: key0018 }]);
    });
  });

  it('0031 drops the search indexes built on the old fold, and migrate builds them again on the new one', async () => {
    await beforeMigration('0030', async (older) => {
      // As migrate built it before 0030: lower-cased only, no NFKC, no full case folding.
      await older.pool.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await older.pool.query(
        'CREATE INDEX ce_history_user_input_trgm_idx ON ce_conversation_history ' +
          'USING gin (lower((user_input) COLLATE "und-x-icu") gin_trgm_ops)'
      );
      expect((await migrate(older.pool)).searchIndexes).toEqual([]);
      const { rows } = await older.pool.query<{ def: string }>(
        'SELECT pg_get_indexdef(to_regclass(name)) AS def FROM unnest($1::text[]) AS name ORDER BY name',
        [SEARCH_INDEX_NAMES]
      );
      expect(rows).toHaveLength(SEARCH_INDEX_NAMES.length);
      for (const { def } of rows) expect(def).toMatch(/^CREATE INDEX .* USING gin \(ce_search_fold\(/);
    });
  });

  it('0019 finds nothing to do on a database that applied 0018, which keeps its record', async () => {
    await beforeMigration('0019', async (older) => {
      // What 0018 did, in its transaction, on databases migrated before it was replaced.
      await older.pool.query('CREATE UNIQUE INDEX ce_turn_request_key_idx ON ce_turn_request (idempotency_key)');
      await older.pool.query('INSERT INTO ce_schema_migrations (name, checksum) VALUES ($1, $2)', [
        '0018_turn_request_key_unique.sql',
        key0018,
      ]);
      expect((await migrate(older.pool)).applied).toEqual([
        '0019_turn_request_key_unique_concurrently.sql',
        '0020_audit_turn_index.sql',
        '0021_audit_user_input_index.sql',
        '0022_payload_claim_conversation.sql',
        '0023_retired_conversation.sql',
        '0024_conversation_erasure.sql',
        '0025_config_changed_notify.sql',
        '0026_deployment_binding.sql',
        '0027_retired_conversation_guard.sql',
        '0028_conversation_updated_index.sql',
        '0029_console_search_text.sql',
        '0030_console_search_fold.sql',
        '0031_console_search_fold_indexes.sql',
        '0032_audit_parked_call_index.sql',
        '0033_audit_parked_call_statistics.sql',
      ]);
      expect(await indexValidity(older, 'ce_turn_request_key_idx')).toEqual([true]);
      expect((await schemaState(older.pool)).changed).toEqual([]);
    });
  });

  it('a concurrent build that failed leaves an INVALID index, which the next run drops and builds again', async () => {
    await withMigrations(
      {
        '0001_t.sql': 'CREATE TABLE t (id int PRIMARY KEY, k text);',
        '0002_t_k.sql':
          "-- migrate: no-transaction\nUPDATE t SET k = NULL WHERE k = 'drop-me';\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_k_idx ON t (k);\n",
      },
      async (db, dir) => {
        await migrate(db.pool, dir);
        // Back to before 0002, with rows its UPDATE repairs and rows it does not.
        await db.pool.query("DELETE FROM ce_schema_migrations WHERE name = '0002_t_k.sql'");
        await db.pool.query('DROP INDEX t_k_idx');
        await db.pool.query("INSERT INTO t VALUES (1, 'drop-me'), (2, 'drop-me'), (3, 'same'), (4, 'same')");
        await expect(migrate(db.pool, dir)).rejects.toThrow(
          /Migration 0002_t_k.sql failed at statement 2: could not create unique index "t_k_idx".*running migrate again repeats them all/
        );
        expect(await indexValidity(db, 't_k_idx')).toEqual([false]);
        expect(await appliedNames(db)).toEqual(['0001_t.sql']);
        await db.pool.query('DELETE FROM t WHERE id = 4');
        expect((await migrate(db.pool, dir)).applied).toEqual(['0002_t_k.sql']);
        expect(await indexValidity(db, 't_k_idx')).toEqual([true]);
        expect((await db.pool.query("SELECT count(*)::int AS n FROM t WHERE k = 'drop-me'")).rows).toEqual([{ n: 0 }]);
      }
    );
  });

  it.each([
    ['CREATE INDEX CONCURRENTLY t_k_idx ON t (k);', /CREATE INDEX CONCURRENTLY IF NOT EXISTS <name>/],
    ['CREATE INDEX IF NOT EXISTS t_k_idx ON t (k);', /CREATE INDEX CONCURRENTLY IF NOT EXISTS <name>/],
    ['DROP INDEX CONCURRENTLY t_k_idx;', /only DROP INDEX CONCURRENTLY IF EXISTS may drop/],
    ['ALTER TABLE t ADD COLUMN c int;', /statement 1: AlterTable is not accepted/],
    ['CREATE INDEX CONCURRENTLY IF NOT EXISTS t_k_idx ON t (k', /does not parse/],
  ])(
    'refuses %p before applying anything: it could not be re-run, or belongs in a transaction',
    async (sql, reason) => {
      await withMigrations(
        {
          '0001_t.sql': 'CREATE TABLE t (id int PRIMARY KEY, k text);',
          '0002_x.sql': `-- migrate: no-transaction\n${sql}`,
        },
        async (db, dir) => {
          const failure = await migrate(db.pool, dir).catch((err: unknown) => err);
          expect(failure).toBeInstanceOf(MigrationStatementError);
          expect((failure as Error).message).toMatch(reason);
          expect(await appliedNames(db)).toEqual([]);
        }
      );
    }
  );

  it('two migrators started at once both finish while one builds an index concurrently', async () => {
    const fresh = await createTestDatabase({ migrated: false });
    try {
      const reports = await Promise.all([migrate(fresh.pool), migrate(fresh.pool)]);
      expect(reports.map((r) => r.applied.length + r.alreadyApplied.length)).toEqual([
        readMigrations().length,
        readMigrations().length,
      ]);
      expect(await indexValidity(fresh, 'ce_turn_request_key_idx')).toEqual([true]);
    } finally {
      await fresh.drop();
    }
  });
});

async function indexValidity(db: TestDatabase, index: string): Promise<boolean[]> {
  const { rows } = await db.pool.query<{ valid: boolean }>(
    'SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)',
    [index]
  );
  return rows.map((r) => r.valid);
}

async function appliedNames(db: TestDatabase): Promise<string[]> {
  const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM ce_schema_migrations ORDER BY name');
  return rows.map((r) => r.name);
}

/** A fresh database and a migrations directory holding just `files`; both removed afterwards. */
async function withMigrations(
  files: Record<string, string>,
  run: (db: TestDatabase, dir: string) => Promise<void>
): Promise<void> {
  const db = await createTestDatabase({ migrated: false });
  const dir = mkdtempSync(join(tmpdir(), 'ce-migrations-'));
  try {
    for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
    await run(db, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}

/** A fresh database migrated up to, not including, the migration named by `prefix`; dropped afterwards. */
async function beforeMigration(prefix: string, run: (db: TestDatabase) => Promise<void>): Promise<void> {
  const older = await createTestDatabase({ migrated: false });
  const dir = mkdtempSync(join(tmpdir(), 'ce-migrations-'));
  try {
    for (const m of readMigrations().filter((f) => f.name < prefix))
      cpSync(join(MIGRATIONS_DIR, m.name), join(dir, m.name));
    await migrate(older.pool, dir);
    await run(older);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await older.drop();
  }
}
