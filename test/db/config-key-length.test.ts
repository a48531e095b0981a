import { getTableName } from 'drizzle-orm';
import { KEY_TEXT_MAX_CHARACTERS, keyTextColumns } from '../../db/config/yaml-columns';
import { seedPacks } from '../../db/seed';
import { CONFIG_TABLES } from '../../db/seed/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(60_000);

/** `n` four-byte characters that do not repeat, so PostgreSQL cannot compress them into a smaller index entry. */
function incompressible(n: number, from: number): string {
  return Array.from({ length: n }, (_, i) => String.fromCodePoint(0x20000 + ((from + i * 7919) % 0xa000))).join('');
}

/** KEY_TEXT_MAX_CHARACTERS against the migrated schema: every index holds it, and it covers every indexed column. */
describe('key text columns in PostgreSQL', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
  });
  afterAll(async () => tdb.drop());

  it('limits exactly the text columns the migrations index', async () => {
    const { rows } = await tdb.pool.query<{ table: string; column: string }>(
      `SELECT DISTINCT c.relname AS table, a.attname AS column
         FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
        WHERE c.relname LIKE 'ce\\_%' AND a.atttypid = 'text'::regtype`
    );
    const tables = new Set(CONFIG_TABLES.map(([, table]) => getTableName(table)));
    const indexed = rows.filter((r) => tables.has(r.table)).map((r) => `${r.table}.${r.column}`);
    const limited = CONFIG_TABLES.flatMap(([, table]) =>
      [...keyTextColumns(table)].map((column) => `${getTableName(table)}.${column}`)
    );
    expect(limited.sort()).toEqual(indexed.sort());
  });

  it('stores keys of KEY_TEXT_MAX_CHARACTERS four-byte characters in the widest index, ce_config', async () => {
    const configType = incompressible(KEY_TEXT_MAX_CHARACTERS, 1);
    const configKey = incompressible(KEY_TEXT_MAX_CHARACTERS, 2);
    await tdb.pool.query('INSERT INTO ce_config (config_id, config_type, config_key) VALUES (990001, $1, $2)', [
      configType,
      configKey,
    ]);
    const stored = await tdb.pool.query('SELECT config_key FROM ce_config WHERE config_id = 990001');
    expect(stored.rows[0].config_key).toBe(configKey);
    // Four times as long (past what the loader takes) is past what the index holds.
    await expect(
      tdb.pool.query('INSERT INTO ce_config (config_id, config_type, config_key) VALUES (990002, $1, $2)', [
        incompressible(4 * KEY_TEXT_MAX_CHARACTERS, 3),
        incompressible(4 * KEY_TEXT_MAX_CHARACTERS, 4),
      ])
    ).rejects.toThrow(/index row/);
    await tdb.pool.query('DELETE FROM ce_config WHERE config_id = 990001');
  });
});
