import { getTableColumns, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { ConfigRows } from '../../core/config/types';
import { configInvalidError, validateConfig } from '../../core/config/validate';
import type { Database } from '../pool';
import { CONFIG_TABLES, toInsertValues, upsertRows, type Tx } from '../seed/seed';
import { withExactJsonb } from './exact-rows';
import { CONFIG_PRIMARY_KEYS, readConfigRowsWith } from './load';
import { recordWrittenSnapshot } from './snapshots';

type Row = Record<string, unknown>;

function primaryColumn(table: PgTable, key: keyof ConfigRows): PgColumn {
  const column = getTableColumns(table)[CONFIG_PRIMARY_KEYS[key] as string];
  if (!column) throw new Error(`no primary-key column for ${String(key)}`);
  return column as PgColumn;
}

async function replaceTable(tx: Tx, key: keyof ConfigRows, table: PgTable, rows: Row[]): Promise<void> {
  const pk = primaryColumn(table, key);
  const ids = rows.map((r) => r[CONFIG_PRIMARY_KEYS[key] as string]);
  // The kept ids go as ONE array parameter: NOT IN binds one per id, and PostgreSQL binds at most 65,535.
  if (ids.length === 0) await tx.delete(table);
  else await tx.delete(table).where(sql`${pk} <> ALL(${sql.param(ids)})`);
}

/**
 * Makes the config tables hold exactly `rows` (config as code, `convengine config apply`): the
 * whole set is validated first and refused with every violation; then, in ONE transaction, rows
 * missing from the set are deleted and the rest upserted, and the result is validated again
 * before commit, and stored as the snapshot in service from the revision it leaves (the newest valid
 * config, which stores fall back to if later rows do not validate). The revision trigger bumps the
 * config version; running turns keep the snapshot they pinned. A jsonb value read with its exact numbers
 * (exact-json.ts: a YAML tree, or readExactConfigRows) is written as that text, not as doubles.
 */
export async function applyConfigRows(db: Database, rows: ConfigRows): Promise<{ version: string }> {
  const result = validateConfig(rows);
  if (result.violations.length > 0)
    throw configInvalidError(result.violations, 'the config set is invalid; nothing was applied');
  return db.transaction(async (tx) => {
    // Children first on delete (ce_mcp_db_tool → ce_mcp_tool), parents first on insert.
    for (const [key, table] of [...CONFIG_TABLES].reverse()) {
      await replaceTable(tx, key, table, rows[key] as unknown as Row[]);
    }
    for (const [key, table] of CONFIG_TABLES) {
      const list = rows[key] as unknown as Row[];
      if (list.length > 0)
        await upsertRows(
          tx,
          table,
          list.map((row) => withExactJsonb(table, toInsertValues(table, row)))
        );
    }
    const written = await readConfigRowsWith(tx);
    const check = validateConfig(written);
    if (check.violations.length > 0)
      throw configInvalidError(check.violations, 'the written config is invalid; rolled back');
    return { version: await recordWrittenSnapshot(tx, written) };
  });
}
