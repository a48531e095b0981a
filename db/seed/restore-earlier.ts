import { sql } from 'drizzle-orm';
import { CONFIG_PRIMARY_KEYS } from '../../core/config/rows';
import { formatViolation, type ConfigViolation } from '../../core/config/types';
import { configInvalidError, validateConfig } from '../../core/config/validate';
import { configVersionOf, readConfigRowsWith } from '../config/load';
import { lastServedFirst, recordWrittenSnapshot } from '../config/snapshots';
import type { Database } from '../pool';
import { ceConfigSnapshot } from '../schema';
import { packConfigRows } from './merge';
import { SEED_PACKS } from './packs';
import { CONFIG_TABLES, toInsertValues, upsertRows, type Tx } from './seed';
import { earlierVersionOf, isPackRow, knownEarlierRows, type KnownEarlierRow } from './upgrade';

type Row = Record<string, unknown>;

/**
 * Before a rollback: a build older than the seed's upgrade of a pack row (db/seed/upgrade.ts) knows only the row it
 * shipped, takes today's row for an author's edit, and may refuse it (ce_prompt_template[125] names variables an
 * older validator does not know), serving its last stored snapshot instead. Its code cannot be changed, so this
 * build puts such rows back as the database served them before (docs/operations.md, "Upgrades and rollbacks").
 */
export interface EarlierRowsRestore {
  /** Rows (`table[id]`) exactly as this build's packs have them, put back as a stored snapshot served them before. */
  restored: string[];
  /** Rows an author edited (neither this build's pack row nor an earlier version of it): left alone. */
  keptEdited: string[];
  /**
   * When no stored snapshot served any of these rows in an earlier version (a database this build's packs seeded
   * first, or whose older snapshots are gone), the rows as this build's packs have them: left as they are.
   */
  neverServedEarlier: string[];
  /** Version of the whole config afterwards. */
  version: string;
}

/** The JSON path of one row in a stored snapshot's rows_json (ConfigRows: table key → rows). */
function snapshotRowPath({ earlier }: KnownEarlierRow): string {
  return `$.${earlier.table}[*] ? (@.${CONFIG_PRIMARY_KEYS[earlier.table]} == ${earlier.id})`;
}

/**
 * The rows `unedited` held in the newest stored snapshot that served any of them in an earlier pack version: the
 * config last served before the seed brought them up to date (snapshots after it have today's rows); null when there
 * is none. A row that snapshot has as today's pack row (it changed in an earlier upgrade) is not taken back further.
 */
async function servedBeforeUpgrade(
  tx: Tx,
  unedited: readonly KnownEarlierRow[]
): Promise<Map<KnownEarlierRow, Row> | null> {
  if (unedited.length === 0) return new Map();
  const columns = unedited.map((known) => sql`jsonb_path_query_first(rows_json, ${snapshotRowPath(known)}::jsonpath)`);
  const snapshots = await tx
    .select({ rows: sql<(Row | null)[]>`jsonb_build_array(${sql.join(columns, sql`, `)})` })
    .from(ceConfigSnapshot)
    .orderBy(...lastServedFirst(tx));
  for (const { rows } of snapshots) {
    const earlier = new Map<KnownEarlierRow, Row>();
    unedited.forEach((known, i) => {
      const served = rows[i];
      const version = served && earlierVersionOf(known.table, served, known.packRow, known.earlier);
      if (version) earlier.set(known, { ...known.packRow, ...version });
    });
    if (earlier.size > 0) return earlier;
  }
  return null;
}

/** Refuses what the restore would add to this build's violations (those the config had are not the restore's). */
function refuseNewViolations(before: readonly ConfigViolation[], after: readonly ConfigViolation[]): void {
  const had = new Set(before.map(formatViolation));
  const added = after.filter((v) => !had.has(formatViolation(v)));
  if (added.length > 0) {
    throw configInvalidError(
      added,
      'restoring the earlier pack rows would leave an invalid config; nothing was applied'
    );
  }
}

/**
 * Puts each pack row EARLIER_PACK_ROWS names that is still exactly this build's pack row back as the newest stored
 * snapshot served it in an earlier pack version, in one transaction; never a row an author edited. Rows the newer
 * packs added are not removed (an older build takes them for an author's rows).
 */
export async function restoreEarlierPackRows(db: Database): Promise<EarlierRowsRestore> {
  const packRows = packConfigRows(SEED_PACKS);
  return db.transaction(async (tx) => {
    const stored = await readConfigRowsWith(tx);
    const known = knownEarlierRows(stored, packRows, CONFIG_TABLES);
    const unedited = known.filter((k) => isPackRow(k.table, k.storedRow, k.packRow));
    const edited = known.filter(
      (k) => !unedited.includes(k) && !earlierVersionOf(k.table, k.storedRow, k.packRow, k.earlier)
    );
    const served = await servedBeforeUpgrade(tx, unedited);
    const restoring = served ?? new Map<KnownEarlierRow, Row>();
    for (const [{ table }, row] of restoring) await upsertRows(tx, table, [toInsertValues(table, row)]);
    const all = await readConfigRowsWith(tx);
    const result = validateConfig(all);
    refuseNewViolations(validateConfig(stored).violations, result.violations);
    if (restoring.size > 0 && result.violations.length === 0) await recordWrittenSnapshot(tx, all);
    return {
      restored: [...restoring.keys()].map((k) => k.name),
      keptEdited: edited.map((k) => k.name),
      neverServedEarlier: served ? [] : unedited.map((k) => k.name),
      version: configVersionOf(all),
    };
  });
}

/** What `convengine seed --restore-earlier` says it did. */
export function restoreLines(restore: EarlierRowsRestore): string[] {
  const lines = [
    restore.restored.length > 0
      ? `restored (as the database served them before a seed brought them up to date): ${restore.restored.join(', ')}`
      : 'restored nothing: no pack row this build brought up to date is unedited and served earlier',
  ];
  if (restore.keptEdited.length > 0) {
    lines.push(`kept as edited (an author's rows, not restored): ${restore.keptEdited.join(', ')}`);
  }
  if (restore.neverServedEarlier.length > 0) {
    lines.push(
      `left as this build's packs have them (no stored snapshot served an earlier version of any): ` +
        restore.neverServedEarlier.join(', ')
    );
  }
  return lines;
}
