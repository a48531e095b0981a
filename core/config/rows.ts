import type { ConfigRows } from './types';

/** A config with no rows at all; tests and seed builders start from it. */
export function emptyConfigRows(): ConfigRows {
  return {
    configs: [],
    intents: [],
    classifiers: [],
    outputSchemas: [],
    promptTemplates: [],
    responses: [],
    rules: [],
    policies: [],
    pendingActions: [],
    mcpTools: [],
    mcpDbTools: [],
    mcpHttpTools: [],
    mcpPlanners: [],
    verboses: [],
    sqlGuardrails: [],
    semanticConcepts: [],
    semanticSynonyms: [],
    semanticEntities: [],
    semanticQueryClasses: [],
    semanticMappings: [],
    semanticJoinPaths: [],
  };
}

/** The primary-key field of every config table, for a stable row order. */
export const CONFIG_PRIMARY_KEYS: { readonly [K in keyof ConfigRows]: keyof ConfigRows[K][number] & string } = {
  configs: 'configId',
  intents: 'intentCode',
  classifiers: 'classifierId',
  outputSchemas: 'schemaId',
  promptTemplates: 'templateId',
  responses: 'responseId',
  rules: 'ruleId',
  policies: 'policyId',
  pendingActions: 'pendingActionId',
  mcpTools: 'toolId',
  mcpDbTools: 'toolId',
  mcpHttpTools: 'toolId',
  mcpPlanners: 'plannerId',
  verboses: 'verboseId',
  sqlGuardrails: 'guardrailId',
  semanticConcepts: 'conceptId',
  semanticSynonyms: 'synonymId',
  semanticEntities: 'entityId',
  semanticQueryClasses: 'queryClassId',
  semanticMappings: 'mappingId',
  semanticJoinPaths: 'joinPathId',
};

/** The table each key of ConfigRows is read from, for findings that name `table[id]`. */
export const CONFIG_TABLE_NAMES: { readonly [K in keyof ConfigRows]: string } = {
  configs: 'ce_config',
  intents: 'ce_intent',
  classifiers: 'ce_intent_classifier',
  outputSchemas: 'ce_output_schema',
  promptTemplates: 'ce_prompt_template',
  responses: 'ce_response',
  rules: 'ce_rule',
  policies: 'ce_policy',
  pendingActions: 'ce_pending_action',
  mcpTools: 'ce_mcp_tool',
  mcpDbTools: 'ce_mcp_db_tool',
  mcpHttpTools: 'ce_mcp_http_tool',
  mcpPlanners: 'ce_mcp_planner',
  verboses: 'ce_verbose',
  sqlGuardrails: 'ce_mcp_sql_guardrail',
  semanticConcepts: 'ce_semantic_concept',
  semanticSynonyms: 'ce_semantic_synonym',
  semanticEntities: 'ce_semantic_entity',
  semanticQueryClasses: 'ce_semantic_query_class',
  semanticMappings: 'ce_semantic_mapping',
  semanticJoinPaths: 'ce_semantic_join_path',
};
