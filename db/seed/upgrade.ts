import { getTableColumns } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { CONFIG_PRIMARY_KEYS, CONFIG_TABLE_NAMES } from '../../core/config/rows';
import type { ConfigRows } from '../../core/config/types';
import { canonicalJson } from '../../core/json';
import { readConfigRowsWith } from '../config/load';
import { EARLIER_PACK_ROWS, type EarlierPackRow } from './packs/earlier-rows';

type Row = Record<string, unknown>;

/** What the upgrade did with the rows an earlier pack version shipped differently, as `table[id]`. */
export interface PackRowUpgrade {
  /** Still as an earlier version shipped them: now as the pack has them. */
  updated: string[];
  /** Neither as the pack has them nor as any earlier version shipped them: an author's edit, left alone. */
  kept: string[];
}

/**
 * A row's content, as the snapshot reads it (the packs' rows have the same shape): every field but the timestamps (a
 * seed row's created_at is fixed, an edited one's may not be); null and absent are alike.
 */
function content(table: PgTable, row: Row): string {
  const columns = getTableColumns(table) as Record<string, { columnType: string } | undefined>;
  const compared = Object.entries(row).filter(([f, v]) => v !== null && columns[f]?.columnType !== 'PgTimestamp');
  return canonicalJson(Object.fromEntries(compared));
}

/** The earlier version of `earlier` that `row` still is exactly, or undefined when it is none of them. */
export function earlierVersionOf(table: PgTable, row: Row, packRow: Row, earlier: EarlierPackRow): Row | undefined {
  const now = content(table, row);
  return earlier.shipped.find((version) => now === content(table, { ...packRow, ...version }));
}

/** Whether `row` is exactly the pack's row. */
export function isPackRow(table: PgTable, row: Row, packRow: Row): boolean {
  return content(table, row) === content(table, packRow);
}

/** A row EARLIER_PACK_ROWS names, as the packs have it today and as the database holds it. */
export interface KnownEarlierRow {
  earlier: EarlierPackRow;
  /** `table[id]`, as reports name it. */
  name: string;
  table: PgTable;
  packRow: Row;
  storedRow: Row;
}

/** The rows EARLIER_PACK_ROWS names that both the packs and `stored` have (the others are inserted as missing). */
export function knownEarlierRows(
  stored: ConfigRows,
  packRows: ConfigRows,
  tables: readonly (readonly [keyof ConfigRows, PgTable])[]
): KnownEarlierRow[] {
  return EARLIER_PACK_ROWS.flatMap((earlier) => {
    const table = tables.find(([key]) => key === earlier.table)?.[1];
    const key = CONFIG_PRIMARY_KEYS[earlier.table];
    const byId = (list: readonly unknown[]) => (list as Row[]).find((row) => row[key] === earlier.id);
    const packRow = byId(packRows[earlier.table]);
    const storedRow = byId(stored[earlier.table]);
    if (!table || !packRow || !storedRow) return [];
    return [{ earlier, name: `${CONFIG_TABLE_NAMES[earlier.table]}[${earlier.id}]`, table, packRow, storedRow }];
  });
}

/**
 * The pack rows to bring up to date in a database seeded by an earlier pack version (EARLIER_PACK_ROWS): each stored
 * row that still equals what an earlier version shipped is replaced by the pack's row; one an author edited is kept.
 */
export async function pickPackRowUpgrades(
  reader: Parameters<typeof readConfigRowsWith>[0],
  packRows: ConfigRows,
  tables: readonly (readonly [keyof ConfigRows, PgTable])[]
): Promise<{ report: PackRowUpgrade; rows: [PgTable, Row][] }> {
  const report: PackRowUpgrade = { updated: [], kept: [] };
  const rows: [PgTable, Row][] = [];
  for (const known of knownEarlierRows(await readConfigRowsWith(reader), packRows, tables)) {
    const { earlier, name, table, packRow, storedRow } = known;
    if (isPackRow(table, storedRow, packRow)) continue;
    if (earlierVersionOf(table, storedRow, packRow, earlier)) {
      report.updated.push(name);
      rows.push([table, packRow]);
    } else report.kept.push(name);
  }
  return { report, rows };
}

/** What `convengine seed` and `convengine start` say about it: nothing when every such row was already current. */
export function packRowUpgradeLines(upgrade: { upgraded: readonly string[]; keptEdited: readonly string[] }): string[] {
  const lines: string[] = [];
  if (upgrade.upgraded.length > 0) {
    lines.push(`brought up to date (as an earlier pack version shipped them): ${upgrade.upgraded.join(', ')}`);
  }
  if (upgrade.keptEdited.length > 0) {
    lines.push(
      `kept as edited (an earlier pack version shipped them differently; the pack's version is not applied): ` +
        upgrade.keptEdited.join(', ')
    );
  }
  return lines;
}
