import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { ConfigRows, ConfigViolation } from '../../core/config/types';
import { configInvalidError, validateConfig } from '../../core/config/validate';
import { syncConfigIdSequences } from '../config/id-sequences';
import { configVersionOf, readConfigRowsWith } from '../config/load';
import { recordWrittenSnapshot } from '../config/snapshots';
import type { Database } from '../pool';
import * as t from '../schema';
import { SEED_CREATED_AT } from './builders';
import { applyBusinessTable } from './business';
import { pickPackRowUpgrades } from './upgrade';
import { mergeBusinessTables, packConfigRows } from './merge';
import { findSeedPack, seedPackNames, SEED_PACKS } from './packs';
import type { SeedPack } from './types';

/** Config tables in insertion order (tool rows before the DB/HTTP rows that reference them). */
export const CONFIG_TABLES: readonly [keyof ConfigRows, PgTable][] = [
  ['configs', t.ceConfig],
  ['intents', t.ceIntent],
  ['classifiers', t.ceIntentClassifier],
  ['outputSchemas', t.ceOutputSchema],
  ['promptTemplates', t.cePromptTemplate],
  ['responses', t.ceResponse],
  ['rules', t.ceRule],
  ['policies', t.cePolicy],
  ['pendingActions', t.cePendingAction],
  ['mcpTools', t.ceMcpTool],
  ['mcpDbTools', t.ceMcpDbTool],
  ['mcpHttpTools', t.ceMcpHttpTool],
  ['mcpPlanners', t.ceMcpPlanner],
  ['verboses', t.ceVerbose],
  ['sqlGuardrails', t.ceMcpSqlGuardrail],
  ['semanticConcepts', t.ceSemanticConcept],
  ['semanticSynonyms', t.ceSemanticSynonym],
  ['semanticEntities', t.ceSemanticEntity],
  ['semanticQueryClasses', t.ceSemanticQueryClass],
  ['semanticMappings', t.ceSemanticMapping],
  ['semanticJoinPaths', t.ceSemanticJoinPath],
];

export interface SeedReport {
  packs: string[];
  /** Config rows of the packs per table (each inserted unless the database had its key). */
  configRows: Partial<Record<keyof ConfigRows, number>>;
  /** How many of those config rows this seed inserted (the others were already there). */
  configInserted: number;
  /** Rows (`table[id]`) still as an earlier pack version shipped them, brought up to date (db/seed/upgrade.ts). */
  upgraded: string[];
  /** Rows an earlier pack version shipped differently that an author has edited since: left as they are. */
  keptEdited: string[];
  /** Business rows written per `business.<table>`. */
  businessRows: Record<string, number>;
  /** Version of the whole config after seeding. */
  version: string;
  warnings: ConfigViolation[];
  /** Violations the config already had, which this seed did not add (it inserted no config row). */
  violations: ConfigViolation[];
}

export class UnknownSeedPackError extends Error {
  readonly type = 'UNKNOWN_SEED_PACK';
  constructor(readonly pack: string) {
    super(`unknown seed pack "${pack}" (known: ${seedPackNames().join(', ')}, or "all")`);
  }
}

/** Resolves pack names; "all" means every bundled pack. */
export function resolveSeedPacks(names: readonly string[]): SeedPack[] {
  if (names.includes('all')) return [...SEED_PACKS];
  return names.map((name) => {
    const pack = findSeedPack(name);
    if (!pack) throw new UnknownSeedPackError(name);
    return pack;
  });
}

export function seedPack(db: Database, name: string): Promise<SeedReport> {
  return seedPacks(db, [name]);
}

/**
 * Inserts the packs' config rows a database lacks (by primary key), brings up to date the rows an earlier pack
 * version shipped and nobody edited since, and fills their business tables, all in ONE transaction; then reads the whole config back inside that transaction and validates it. A violation after
 * inserting rows rolls everything back and throws CONFIG_INVALID listing every `table[id]: reason`.
 */
export function seedPacks(db: Database, names: readonly string[]): Promise<SeedReport> {
  return applySeedPacks(db, resolveSeedPacks(names));
}

/** Like seedPacks, for pack objects (custom packs in tests and demos). */
export async function applySeedPacks(db: Database, packs: readonly SeedPack[]): Promise<SeedReport> {
  const rows = packConfigRows(packs);
  const business = mergeBusinessTables(packs);
  return db.transaction(async (tx) => {
    const { configRows, inserted } = await insertMissingPackRows(tx, rows);
    const upgrade = await pickPackRowUpgrades(tx, rows, CONFIG_TABLES);
    for (const [table, row] of upgrade.rows) await upsertRows(tx, table, [toInsertValues(table, row)]);
    // Seed rows carry their documented IDs; a later insert without one must not collide with them.
    await syncConfigIdSequences(tx);
    const businessRows: Record<string, number> = {};
    for (const table of business) businessRows[`business.${table.name}`] = await applyBusinessTable(tx, table);
    const all = await readConfigRowsWith(tx);
    const result = validateConfig(all);
    // A seed that wrote no config row cannot have made the config invalid: what is wrong is an author's edit,
    // which the config store refuses while it serves the last valid snapshot; starting must not stop on it.
    if (result.violations.length > 0 && inserted + upgrade.rows.length > 0) {
      throw configInvalidError(
        result.violations,
        `seeding ${packs.map((p) => p.name).join(', ')} would leave an invalid config; nothing was applied`
      );
    }
    if (result.violations.length === 0) await recordWrittenSnapshot(tx, all);
    return {
      packs: packs.map((p) => p.name),
      configRows,
      configInserted: inserted,
      upgraded: upgrade.report.updated,
      keptEdited: upgrade.report.kept,
      businessRows,
      version: configVersionOf(all),
      warnings: result.warnings,
      violations: result.violations,
    };
  });
}

/**
 * Missing rows only: a row already there (an author's edit through `config apply` or SQL) is kept, so `convengine
 * start`, which seeds its packs on every start, never reverts it. Only a row still as an earlier pack version shipped
 * it is brought up to date (db/seed/upgrade.ts).
 */
async function insertMissingPackRows(
  tx: Tx,
  rows: ConfigRows
): Promise<{ configRows: SeedReport['configRows']; inserted: number }> {
  const configRows: SeedReport['configRows'] = {};
  let inserted = 0;
  for (const [key, table] of CONFIG_TABLES) {
    const list = rows[key] as unknown as Record<string, unknown>[];
    if (list.length === 0) continue;
    inserted += await insertMissingRows(
      tx,
      table,
      list.map((row) => toInsertValues(table, row))
    );
    configRows[key] = list.length;
  }
  return { configRows, inserted };
}

export type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Snapshot-shaped row → drizzle insert values: raw rule phase, Date timestamps, seed created_at. */
export function toInsertValues(table: PgTable, row: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = { ...row };
  if (table === t.ceRule) {
    values.phase = row.dbPhase ?? row.phase;
    delete values.dbPhase;
  }
  for (const [field, column] of Object.entries(getTableColumns(table))) {
    if (column.columnType !== 'PgTimestamp') continue;
    const value = values[field] ?? SEED_CREATED_AT;
    values[field] = typeof value === 'string' ? new Date(value) : value;
  }
  return values;
}

/** The most parameters PostgreSQL binds to one statement (its wire protocol counts them in 16 bits). */
export const PG_MAX_PARAMETERS = 65_535;

/**
 * `values` cut into runs that one INSERT can bind: a row takes at most one parameter per column, so a table of
 * 13 columns goes 5,041 rows at a time. The caller runs them in its transaction, so a table is still all or nothing.
 */
export function insertBatches<T>(table: PgTable, values: readonly T[]): T[][] {
  const perStatement = Math.floor(PG_MAX_PARAMETERS / Math.max(1, Object.keys(getTableColumns(table)).length));
  const batches: T[][] = [];
  for (let i = 0; i < values.length; i += perStatement) batches.push(values.slice(i, i + perStatement));
  return batches;
}

/** Inserts the rows whose keys are absent; returns how many it inserted. */
export async function insertMissingRows(tx: Tx, table: PgTable, values: Record<string, unknown>[]): Promise<number> {
  let inserted = 0;
  for (const batch of insertBatches(table, values)) {
    const result = await tx
      .insert(table)
      .values(batch as never)
      .onConflictDoNothing();
    inserted += result.rowCount ?? 0;
  }
  return inserted;
}

export async function upsertRows(tx: Tx, table: PgTable, values: Record<string, unknown>[]): Promise<void> {
  const columns = Object.values(getTableColumns(table));
  const target = columns.filter((c) => c.primary);
  const set: Record<string, SQL> = {};
  for (const [field, column] of Object.entries(getTableColumns(table))) {
    if (!column.primary) set[field] = sql.raw(`excluded."${column.name}"`);
  }
  for (const batch of insertBatches(table, values)) {
    await tx
      .insert(table)
      .values(batch as never)
      .onConflictDoUpdate({ target, set });
  }
}
