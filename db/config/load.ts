import { createHash } from 'node:crypto';
import type { ConfigRows, ConfigSnapshot } from '../../core/config/types';
import { canonicalJson, type Json } from '../../core/json';
import { normalizePhase } from '../../core/rules/phase';
import type { Database } from '../pool';
import * as t from '../schema';

type Row = Record<string, unknown>;

/** Dates become ISO strings so a snapshot is plain JSON. */
function plain<T>(rows: Row[]): T[] {
  return rows.map((row) => {
    const out: Row = {};
    for (const [k, v] of Object.entries(row)) out[k] = v instanceof Date ? v.toISOString() : v;
    return out as T;
  });
}

/** Reads every config table in one REPEATABLE READ transaction, so the rows are mutually consistent. */
export async function readConfigRows(db: Database): Promise<ConfigRows> {
  return db.transaction(
    async (tx) => {
      const rules = plain<ConfigRows['rules'][number]>(
        (await tx.select().from(t.ceRule)).map((r) => ({
          ...r,
          dbPhase: r.phase,
          // Unknown phases are kept as stored; validation reports them and the snapshot is refused.
          phase: normalizePhase(r.phase) ?? r.phase,
        }))
      );
      return {
        configs: plain(await tx.select().from(t.ceConfig)),
        intents: plain(await tx.select().from(t.ceIntent)),
        classifiers: plain(await tx.select().from(t.ceIntentClassifier)),
        outputSchemas: plain(await tx.select().from(t.ceOutputSchema)),
        promptTemplates: plain(await tx.select().from(t.cePromptTemplate)),
        responses: plain(await tx.select().from(t.ceResponse)),
        rules,
        policies: plain(await tx.select().from(t.cePolicy)),
        pendingActions: plain(await tx.select().from(t.cePendingAction)),
        mcpTools: plain(await tx.select().from(t.ceMcpTool)),
        mcpDbTools: plain(await tx.select().from(t.ceMcpDbTool)),
        mcpHttpTools: plain(await tx.select().from(t.ceMcpHttpTool)),
        mcpPlanners: plain(await tx.select().from(t.ceMcpPlanner)),
        sqlGuardrails: plain(await tx.select().from(t.ceMcpSqlGuardrail)),
        semanticConcepts: plain(await tx.select().from(t.ceSemanticConcept)),
        semanticSynonyms: plain(await tx.select().from(t.ceSemanticSynonym)),
        semanticEntities: plain(await tx.select().from(t.ceSemanticEntity)),
        semanticQueryClasses: plain(await tx.select().from(t.ceSemanticQueryClass)),
        semanticMappings: plain(await tx.select().from(t.ceSemanticMapping)),
        semanticJoinPaths: plain(await tx.select().from(t.ceSemanticJoinPath)),
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' }
  );
}

/** Rows in a stable order, so the version depends on content only, not on physical row order. */
function sortedRows(rows: ConfigRows): ConfigRows {
  const out = {} as Record<string, Json[]>;
  for (const [table, list] of Object.entries(rows) as [string, Json[]][]) {
    out[table] = [...list].sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1));
  }
  return out as unknown as ConfigRows;
}

export function configVersionOf(rows: ConfigRows): string {
  return createHash('sha256').update(canonicalJson(sortedRows(rows))).digest('hex').slice(0, 16);
}

/** Freezes rows into an immutable snapshot whose version is a content hash. */
export function snapshotOf(rows: ConfigRows): ConfigSnapshot {
  const sorted = sortedRows(rows);
  return deepFreeze({ version: configVersionOf(rows), rows: sorted });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
