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

type Verdict = 'CURRENT' | 'EARLIER' | 'EDITED';

function verdict(table: PgTable, stored: Row, packRow: Row, earlier: EarlierPackRow): Verdict {
  const now = content(table, stored);
  if (now === content(table, packRow)) return 'CURRENT';
  const shipped = earlier.shipped.some((version) => now === content(table, { ...packRow, ...version }));
  return shipped ? 'EARLIER' : 'EDITED';
}

/**
 * The pack rows to bring up to date in a database seeded by an earlier pack version (EARLIER_PACK_ROWS): each stored
 * row that still equals what an earlier version shipped is replaced by the pack's row; one an author edited is kept.
 * Rows the packs do not have, or the database no longer has, are not looked at (the latter are inserted as missing).
 */
export async function pickPackRowUpgrades(
  reader: Parameters<typeof readConfigRowsWith>[0],
  packRows: ConfigRows,
  tables: readonly (readonly [keyof ConfigRows, PgTable])[]
): Promise<{ report: PackRowUpgrade; rows: [PgTable, Row][] }> {
  const stored = await readConfigRowsWith(reader);
  const report: PackRowUpgrade = { updated: [], kept: [] };
  const rows: [PgTable, Row][] = [];
  for (const earlier of EARLIER_PACK_ROWS) {
    const table = tables.find(([key]) => key === earlier.table)?.[1];
    const key = CONFIG_PRIMARY_KEYS[earlier.table];
    const byId = (list: readonly unknown[]) => (list as Row[]).find((row) => row[key] === earlier.id);
    const packRow = byId(packRows[earlier.table]);
    const storedRow = byId(stored[earlier.table]);
    if (!table || !packRow || !storedRow) continue;
    const found = verdict(table, storedRow, packRow, earlier);
    const name = `${CONFIG_TABLE_NAMES[earlier.table]}[${earlier.id}]`;
    if (found === 'EARLIER') {
      report.updated.push(name);
      rows.push([table, packRow]);
    } else if (found === 'EDITED') report.kept.push(name);
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
