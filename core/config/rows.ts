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
