import type { PgTable } from 'drizzle-orm/pg-core';
import type { ConfigRows } from '../../core/config/types';
import type { Database } from '../../db/pool';
import * as t from '../../db/schema';

/** Which drizzle table holds each part of ConfigRows. */
const TABLES: Record<keyof ConfigRows, PgTable> = {
  configs: t.ceConfig,
  intents: t.ceIntent,
  classifiers: t.ceIntentClassifier,
  outputSchemas: t.ceOutputSchema,
  promptTemplates: t.cePromptTemplate,
  responses: t.ceResponse,
  rules: t.ceRule,
  policies: t.cePolicy,
  pendingActions: t.cePendingAction,
  mcpTools: t.ceMcpTool,
  mcpDbTools: t.ceMcpDbTool,
  mcpHttpTools: t.ceMcpHttpTool,
  mcpPlanners: t.ceMcpPlanner,
  verboses: t.ceVerbose,
  sqlGuardrails: t.ceMcpSqlGuardrail,
  semanticConcepts: t.ceSemanticConcept,
  semanticSynonyms: t.ceSemanticSynonym,
  semanticEntities: t.ceSemanticEntity,
  semanticQueryClasses: t.ceSemanticQueryClass,
  semanticMappings: t.ceSemanticMapping,
  semanticJoinPaths: t.ceSemanticJoinPath,
};

/** Snapshot rows back to column values: dates as Date, rules store their raw (un-normalized) phase. */
function toColumns(table: keyof ConfigRows, row: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key === 'createdAt' && typeof value === 'string') out[key] = new Date(value);
    else out[key] = value;
  }
  if (table === 'rules') {
    out['phase'] = out['dbPhase'];
    delete out['dbPhase'];
  }
  return out;
}

/** Inserts config rows into the ce_* tables (tests only; seed packs have their own loader). */
export async function insertConfigRows(db: Database, rows: Partial<ConfigRows>): Promise<void> {
  for (const table of Object.keys(TABLES) as (keyof ConfigRows)[]) {
    const list = rows[table];
    if (!list || list.length === 0) continue;
    await db.insert(TABLES[table]).values(list.map((r) => toColumns(table, r)) as never);
  }
}

/** Empties every config table (between test cases that need different config). */
export async function clearConfigRows(db: Database): Promise<void> {
  for (const table of Object.values(TABLES).reverse()) await db.delete(table);
}
