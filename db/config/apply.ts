import { DrizzleQueryError, getTableName } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { DatabaseError } from 'pg';
import type { ConfigRows } from '../../core/config/types';
import { configInvalidError, validateConfig } from '../../core/config/validate';
import { ErrorType, isEngineError } from '../../core/errors';
import type { Database } from '../pool';
import { ceConfigRevision } from '../schema';
import { CONFIG_TABLES, insertBatches, toInsertValues, type Tx } from '../seed/seed';
import { readExactConfigRowsWith, withExactJsonb } from './exact-rows';
import { readConfigRowsWith, snapshotOf } from './load';
import { recordWrittenSnapshot } from './snapshots';
import { diffConfig, type RowChange } from './yaml-tree';

type Row = Record<string, unknown>;

/**
 * A table's rows could not be written although the set validated: named by its table file, with PostgreSQL's
 * detail, which names the row (`Key (tool_code)=(…) already exists.`, `Failing row contains (5001, …)`).
 */
export class ConfigWriteError extends Error {
  readonly type = 'CONFIG_WRITE_FAILED';
  constructor(
    readonly table: string,
    readonly databaseError: unknown
  ) {
    const db = databaseError instanceof DrizzleQueryError ? databaseError.cause : databaseError;
    const why = db instanceof DatabaseError ? `${db.message}${db.detail ? ` (${db.detail})` : ''}` : String(db);
    super(`${table}.yaml: the rows could not be written: ${why}`);
    this.name = 'ConfigWriteError';
  }
}

async function insertTable(tx: Tx, table: PgTable, rows: Row[]): Promise<void> {
  const values = rows.map((row) => withExactJsonb(table, toInsertValues(table, row)));
  try {
    for (const batch of insertBatches(table, values)) await tx.insert(table).values(batch as never);
  } catch (err) {
    throw new ConfigWriteError(getTableName(table), err);
  }
}

/**
 * The config the tables hold, read once this transaction holds the row every config write takes: the revision
 * trigger updates ce_config_revision at each statement on a config table and keeps it to commit, so no other write
 * (an apply, a seed, an SQL edit) commits between this read and this apply's commit. Null when the rows cannot be
 * read exactly (a jsonb value that is a number a double does not hold, which no valid set has): they differ then.
 */
async function lockedCurrentRows(tx: Tx): Promise<ConfigRows | null> {
  try {
    return await lockedExactRows(tx);
  } catch (err) {
    if (isEngineError(err) && err.type === ErrorType.ConfigInvalid) return null;
    throw err;
  }
}

/** lockedCurrentRows for a write composed from them: rows that cannot be read exactly refuse it (thrown). */
async function lockedExactRows(tx: Tx): Promise<ConfigRows> {
  await tx.select({ revision: ceConfigRevision.revision }).from(ceConfigRevision).for('update');
  return readExactConfigRowsWith(tx);
}

/**
 * Makes the config tables hold exactly `rows` (config as code, `convengine config apply`): the whole set is validated
 * first and refused with every violation; then, in ONE transaction, every row is deleted and the set inserted, the
 * result validated again before commit where it reads back other than written, and stored as the snapshot in service
 * from the revision it leaves (the newest valid config, which stores fall back to if later rows do not validate).
 * Deleted first, not updated row by row: PostgreSQL checks a UNIQUE key (tool_code, config_type + config_key,
 * concept_key, …) at each row, so two rows swapping one failed though the set is valid. The revision trigger bumps
 * the config version; running turns keep the snapshot they pinned. A jsonb value read with its exact numbers
 * (exact-json.ts: a YAML tree, or readExactConfigRows) is written as that text, not as doubles.
 *
 * When the tables already hold exactly `rows` (no row added, removed or changed in any column, jsonb numbers
 * compared exactly), nothing is written (`written: false`): rewriting them bumped the revision, so every store
 * re-read the config for nothing, and recorded the same snapshot again. The comparison and the write are one
 * transaction under the lock every config write takes (lockedCurrentRows), so the last writer still wins: a write
 * that commits first is what this apply compares with, and one that comes later waits for it.
 */
export async function applyConfigRows(db: Database, rows: ConfigRows): Promise<{ version: string; written: boolean }> {
  const result = validateConfig(rows);
  if (result.violations.length > 0)
    throw configInvalidError(result.violations, 'the config set is invalid; nothing was applied');
  const { version, written } = (await writeComposed(db, () => rows, lockedCurrentRows))!;
  return { version, written };
}

/**
 * Makes the rows an apply writes from the config the tables hold, read under the config write lock; null refuses
 * the apply (nothing is written). It must validate what it returns: the write does not validate it before.
 */
export type ComposeConfig = (current: ConfigRows) => ConfigRows | null;

/** What an apply did: `changes` lead from `current`, the rows read under the lock, to `rows`, those it made. */
export interface ComposedApply {
  version: string;
  written: boolean;
  current: ConfigRows;
  rows: ConfigRows;
  changes: RowChange[];
}

/**
 * applyConfigRows of the rows `compose` makes of the tables as they are once this apply holds the config write
 * lock (`config apply` of a partial tree: the tables without a file are kept as they are then, not as they were
 * read before, so an apply committed meanwhile is kept, not undone). Null when `compose` refused.
 */
export async function applyComposedConfig(db: Database, compose: ComposeConfig): Promise<ComposedApply | null> {
  return writeComposed(db, (current) => compose(current!), lockedExactRows) as Promise<ComposedApply | null>;
}

/** The one transaction of every apply; `current` and `changes` are null when the tables cannot be read exactly. */
async function writeComposed(
  db: Database,
  compose: (current: ConfigRows | null) => ConfigRows | null,
  lockAndRead: (tx: Tx) => Promise<ConfigRows | null>
): Promise<{ version: string; written: boolean; current: ConfigRows | null; changes: RowChange[] | null } | null> {
  let read: { current: ConfigRows | null; rows: ConfigRows; changes: RowChange[] | null } | null = null;
  const result = await db.transaction(async (tx) => {
    const current = await lockAndRead(tx);
    const rows = compose(current);
    if (rows === null) return null;
    read = { current, rows, changes: current === null ? null : diffConfig(current, rows) };
    if (current !== null && read.changes!.length === 0) {
      return { version: snapshotOf(current).version, written: false };
    }
    // Children first on delete (ce_mcp_db_tool → ce_mcp_tool), parents first on insert.
    for (const [, table] of [...CONFIG_TABLES].reverse()) await tx.delete(table);
    for (const [key, table] of CONFIG_TABLES) {
      const list = rows[key] as unknown as Row[];
      if (list.length > 0) await insertTable(tx, table, list);
    }
    const written = await readConfigRowsWith(tx);
    // `rows` is validated (applyConfigRows; a compose must), and seconds go to a large config's validation under the
    // lock every config write waits for. What the tables hand back differs from it only where the database made it
    // differ (a jsonb number a double does not hold, a column's default, a trigger): diffConfig compares every
    // column, jsonb numbers exactly, and validation reads nothing else, so only a set that differs is validated again.
    if (diffConfig(rows, written).length > 0) {
      const check = validateConfig(written);
      if (check.violations.length > 0)
        throw configInvalidError(check.violations, 'the written config is invalid; rolled back');
    }
    return { version: await recordWrittenSnapshot(tx, written), written: true };
  });
  return result && { ...result, ...read! };
}
