import type { ConfigRows } from '../../core/config/types';
import { packConfigRows } from '../../db/seed/merge';
import type { SeedPack } from '../../db/seed';
import type { TestDatabase } from '../support/database';

const CONFIG_TABLES = [
  'ce_config',
  'ce_intent',
  'ce_intent_classifier',
  'ce_output_schema',
  'ce_prompt_template',
  'ce_response',
  'ce_rule',
  'ce_policy',
  'ce_pending_action',
  'ce_mcp_tool',
  'ce_mcp_db_tool',
  'ce_mcp_http_tool',
  'ce_mcp_planner',
  'ce_mcp_sql_guardrail',
  'ce_semantic_concept',
  'ce_semantic_synonym',
  'ce_semantic_entity',
  'ce_semantic_query_class',
  'ce_semantic_mapping',
  'ce_semantic_join_path',
];

/** Row count of every config table and every table in schema business. */
export async function rowCounts(tdb: TestDatabase): Promise<Record<string, number>> {
  const { rows: business } = await tdb.pool.query<{ name: string }>(
    "SELECT 'business.' || table_name AS name FROM information_schema.tables WHERE table_schema = 'business' ORDER BY 1"
  );
  const counts: Record<string, number> = {};
  for (const table of [...CONFIG_TABLES, ...business.map((b) => b.name)]) {
    const { rows } = await tdb.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    counts[table] = rows[0]?.n ?? -1;
  }
  return counts;
}

/** The rows `packs` put in each config table. */
export function expectedConfigCounts(packs: readonly SeedPack[]): Record<string, number> {
  const rows = packConfigRows(packs);
  const keys: (keyof ConfigRows)[] = [
    'configs',
    'intents',
    'classifiers',
    'outputSchemas',
    'promptTemplates',
    'responses',
    'rules',
    'policies',
    'pendingActions',
    'mcpTools',
    'mcpDbTools',
    'mcpHttpTools',
    'mcpPlanners',
    'sqlGuardrails',
    'semanticConcepts',
    'semanticSynonyms',
    'semanticEntities',
    'semanticQueryClasses',
    'semanticMappings',
    'semanticJoinPaths',
  ];
  return Object.fromEntries(CONFIG_TABLES.map((table, i) => [table, rows[keys[i] as keyof ConfigRows].length]));
}
