import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { ConfigRows } from '../../core/config/types';
import { EngineError, ErrorType } from '../../core/errors';
import { retryOnConnectionLoss } from '../connection-loss';
import type { Database } from '../pool';
import { CONFIG_TABLES } from '../seed/seed';
import { exactJsonText, registerDatabaseJsonb } from './exact-json';
import { CONFIG_PRIMARY_KEYS, readConfigRowsWith, type ConfigReader } from './load';

/**
 * Config as code against the database with jsonb numbers exact (exact-json.ts): reading registers the exact text
 * of each jsonb value a double would change, writing sends that text instead of the doubles.
 */
type Row = Record<string, unknown>;

function jsonbColumns(table: PgTable): [field: string, column: PgColumn][] {
  return Object.entries(getTableColumns(table)).filter(([, column]) => column.columnType === 'PgJsonb');
}

/** Reads the table's jsonb values as PostgreSQL writes them and registers those of `rows` that need it. */
async function registerTable(reader: ConfigReader, key: keyof ConfigRows, table: PgTable, rows: Row[]) {
  const jsonb = jsonbColumns(table);
  const pk = CONFIG_PRIMARY_KEYS[key] as string;
  const idColumn = getTableColumns(table)[pk];
  if (jsonb.length === 0 || !idColumn) return;
  const texts = Object.fromEntries(jsonb.map(([field, column]) => [field, sql<string | null>`${column}::text`]));
  const stored = (await reader.select({ id: idColumn, ...texts }).from(table)) as Row[];
  const byId = new Map(rows.map((row) => [String(row[pk]), row]));
  for (const cells of stored) {
    const row = byId.get(String(cells['id']));
    for (const [field, column] of jsonb) {
      const text = cells[field];
      if (!row || typeof text !== 'string') continue;
      const problem = registerDatabaseJsonb(row[field], text);
      if (problem) {
        const where = `${getTableName(table)}[${String(cells['id'])}]`;
        throw new EngineError(ErrorType.ConfigInvalid, `${where}: ${column.name} ${problem}`);
      }
    }
  }
}

/**
 * Every config table as readConfigRows reads it, in one REPEATABLE READ transaction with the jsonb text it
 * registers: what `config export`, `diff` and `apply` start from. A jsonb value that is a number a double does
 * not hold is refused by table, id and column (CONFIG_INVALID): exported, it would change.
 */
export async function readExactConfigRows(db: Database): Promise<ConfigRows> {
  return retryOnConnectionLoss(() =>
    db.transaction((tx) => readExactConfigRowsWith(tx), { isolationLevel: 'repeatable read', accessMode: 'read only' })
  );
}

/** readExactConfigRows in a transaction of the caller's (`config apply` compares them with what it would write). */
export async function readExactConfigRowsWith(reader: ConfigReader): Promise<ConfigRows> {
  const rows = await readConfigRowsWith(reader);
  for (const [key, table] of CONFIG_TABLES) await registerTable(reader, key, table, rows[key] as unknown as Row[]);
  return rows;
}

/** Insert values with each registered jsonb value sent as its exact text, which PostgreSQL reads as numeric. */
export function withExactJsonb(table: PgTable, values: Row): Row {
  const out: Row = { ...values };
  for (const [field] of jsonbColumns(table)) {
    const text = exactJsonText(values[field]);
    if (text !== undefined) out[field] = sql`${text}::jsonb` as SQL;
  }
  return out;
}
