import { createHash } from 'node:crypto';
import { getTableColumns } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { screenConfigRow } from '../../core/config/json-depth';
import { CONFIG_PRIMARY_KEYS } from '../../core/config/rows';
import type { ConfigRows, ConfigSnapshot } from '../../core/config/types';
import { canonicalJson } from '../../core/json';
import { normalizePhase } from '../../core/rules/phase';
import { retryOnConnectionLoss } from '../connection-loss';
import type { Database } from '../pool';
import * as t from '../schema';

type Row = Record<string, unknown>;

/** Anything that can run drizzle selects: the database or an open transaction. */
export type ConfigReader = Pick<Database, 'select'>;

/**
 * Snapshot rows are plain JSON: dates become ISO strings, and numeric columns (which drizzle hands
 * back as strings) become numbers, as the row types in core/config/types declare. A value nested
 * too deep (written with SQL) is read as OVER_DEEP_VALUE, here, before anything walks it: hashing,
 * validation, the YAML diff and `config apply` then all see a row that validation refuses by name.
 */
function plain<T>(table: PgTable, rows: Row[]): T[] {
  const numeric = Object.entries(getTableColumns(table))
    .filter(([, column]) => column.columnType === 'PgNumeric')
    .map(([field]) => field);
  return rows.map((row) => {
    const out: Row = {};
    for (const [k, v] of Object.entries(row)) out[k] = v instanceof Date ? v.toISOString() : v;
    for (const field of numeric) if (typeof out[field] === 'string') out[field] = Number(out[field]);
    return screenConfigRow(out) as T;
  });
}

/** Re-exported for the db layer's existing importers; the map itself is core's (validation names rows by it). */
export { CONFIG_PRIMARY_KEYS } from '../../core/config/rows';

/**
 * Reads every config table through `reader` without opening a transaction of its own, so a
 * seeder can validate the rows it has just written inside its own transaction.
 */
export async function readConfigRowsWith(reader: ConfigReader): Promise<ConfigRows> {
  const rules = plain<ConfigRows['rules'][number]>(
    t.ceRule,
    (await reader.select().from(t.ceRule)).map((r) => ({
      ...r,
      dbPhase: r.phase,
      // Unknown phases are kept as stored; validation reports them and the snapshot is refused.
      phase: normalizePhase(r.phase) ?? r.phase,
    }))
  );
  return {
    configs: plain(t.ceConfig, await reader.select().from(t.ceConfig)),
    intents: plain(t.ceIntent, await reader.select().from(t.ceIntent)),
    classifiers: plain(t.ceIntentClassifier, await reader.select().from(t.ceIntentClassifier)),
    outputSchemas: plain(t.ceOutputSchema, await reader.select().from(t.ceOutputSchema)),
    promptTemplates: plain(t.cePromptTemplate, await reader.select().from(t.cePromptTemplate)),
    responses: plain(t.ceResponse, await reader.select().from(t.ceResponse)),
    rules,
    policies: plain(t.cePolicy, await reader.select().from(t.cePolicy)),
    pendingActions: plain(t.cePendingAction, await reader.select().from(t.cePendingAction)),
    mcpTools: plain(t.ceMcpTool, await reader.select().from(t.ceMcpTool)),
    mcpDbTools: plain(t.ceMcpDbTool, await reader.select().from(t.ceMcpDbTool)),
    mcpHttpTools: plain(t.ceMcpHttpTool, await reader.select().from(t.ceMcpHttpTool)),
    mcpPlanners: plain(t.ceMcpPlanner, await reader.select().from(t.ceMcpPlanner)),
    verboses: plain(t.ceVerbose, await reader.select().from(t.ceVerbose)),
    sqlGuardrails: plain(t.ceMcpSqlGuardrail, await reader.select().from(t.ceMcpSqlGuardrail)),
    semanticConcepts: plain(t.ceSemanticConcept, await reader.select().from(t.ceSemanticConcept)),
    semanticSynonyms: plain(t.ceSemanticSynonym, await reader.select().from(t.ceSemanticSynonym)),
    semanticEntities: plain(t.ceSemanticEntity, await reader.select().from(t.ceSemanticEntity)),
    semanticQueryClasses: plain(t.ceSemanticQueryClass, await reader.select().from(t.ceSemanticQueryClass)),
    semanticMappings: plain(t.ceSemanticMapping, await reader.select().from(t.ceSemanticMapping)),
    semanticJoinPaths: plain(t.ceSemanticJoinPath, await reader.select().from(t.ceSemanticJoinPath)),
  };
}

/** The rows plus the ce_config_revision counter they correspond to. */
export interface ConfigState {
  revision: number;
  rows: ConfigRows;
}

/**
 * Reads the revision counter and every config table in one REPEATABLE READ transaction, so the
 * rows are mutually consistent and belong to exactly that revision. The transaction only reads, so
 * one whose connection was lost is run again whole on a fresh one, rather than failing the step
 * (or the worker's start) that needed the config.
 */
export async function readConfigState(db: Database): Promise<ConfigState> {
  return retryOnConnectionLoss(() =>
    db.transaction(
      async (tx) => {
        const [counter] = await tx.select({ revision: t.ceConfigRevision.revision }).from(t.ceConfigRevision);
        return { revision: counter?.revision ?? 0, rows: await readConfigRowsWith(tx) };
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' }
    )
  );
}

/** Reads every config table in one REPEATABLE READ transaction, so the rows are mutually consistent. */
export async function readConfigRows(db: Database): Promise<ConfigRows> {
  return (await readConfigState(db)).rows;
}

/** The current value of the config revision counter (bumped by a trigger on every config write). */
export async function readConfigRevision(db: Database): Promise<number> {
  const [counter] = await retryOnConnectionLoss(() =>
    db.select({ revision: t.ceConfigRevision.revision }).from(t.ceConfigRevision)
  );
  return counter?.revision ?? 0;
}

function compareKeys(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Rows in primary-key order, so the version depends on content only, not on physical row order. */
function sortedRows(rows: ConfigRows): ConfigRows {
  const out: Record<string, unknown[]> = {};
  for (const table of Object.keys(CONFIG_PRIMARY_KEYS) as (keyof ConfigRows)[]) {
    const key = CONFIG_PRIMARY_KEYS[table];
    const list = (rows[table] ?? []) as unknown as Row[];
    out[table] = [...list].sort((a, b) => compareKeys(a[key], b[key]));
  }
  return out as unknown as ConfigRows;
}

/**
 * Tables added after snapshots were first stored (ce_verbose, migration 0013). While such a table
 * is empty it is left out of the hash, so a config without its rows keeps the version it had —
 * and a snapshot stored before the table existed still hashes to its own version.
 */
const LATER_TABLES: readonly (keyof ConfigRows)[] = ['verboses'];

export function configVersionOf(rows: ConfigRows): string {
  const hashed: Record<string, unknown> = { ...sortedRows(rows) };
  for (const table of LATER_TABLES) if ((rows[table] ?? []).length === 0) delete hashed[table];
  return createHash('sha256').update(canonicalJson(hashed)).digest('hex').slice(0, 16);
}

/** Freezes rows into an immutable snapshot whose version is a content hash. */
export function snapshotOf(rows: ConfigRows): ConfigSnapshot {
  const sorted = sortedRows(rows);
  return deepFreeze({ version: configVersionOf(sorted), rows: sorted });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
