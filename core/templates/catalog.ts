/**
 * The variables a prompt or response template may reference (§8.1). The pipeline builds the
 * actual map at render time; this catalog is what config validation checks templates against, so
 * an author's typo is reported at load time instead of failing a turn with
 * UNRESOLVED_PROMPT_VARIABLE.
 */

/** Step variables and their aliases (Java PromptTemplateContext); the first name is canonical. */
export const STEP_VARIABLE_ALIASES: Readonly<Record<string, readonly string[]>> = {
  context: ['context', 'contextJson', 'context_json'],
  user_input: [
    'user_input',
    'userInput',
    'user_text',
    'userText',
    'input_text',
    'inputText',
    'input',
    'user_message',
    'userMessage',
  ],
  resolved_user_input: [
    'resolved_user_input',
    'resolvedUserInput',
    'resolved_input',
    'resolvedInput',
    'effective_input',
    'effectiveInput',
    'effective_user_input',
    'effectiveUserInput',
    'final_user_input',
    'finalUserInput',
  ],
  standalone_query: [
    'standalone_query',
    'standaloneQuery',
    'rewritten_query',
    'rewrittenQuery',
    'query_rewrite',
    'queryRewrite',
  ],
  schema: ['schema', 'json_schema', 'schema_json', 'data_schema', 'dataSchema', 'jsonSchema', 'schemaJson'],
  container_data: ['container_data', 'containerData'],
  validation: ['validation', 'validation_tables'],
  allowed_intents: ['allowed_intents', 'allowedIntents'],
  pending_clarification: ['pending_clarification', 'pendingClarification'],
  conversation_history: ['conversation_history', 'conversationHistory', 'history'],
  mcp_tools: ['mcp_tools', 'tools', 'available_tools', 'tool_list', 'mcpTools'],
  mcp_observations: ['mcp_observations', 'observations', 'mcpObservations'],
  question: ['question', 'query_question', 'queryQuestion'],
  selected_entity: ['selected_entity', 'selectedEntity', 'entity'],
  selected_entity_description: ['selected_entity_description', 'selectedEntityDescription'],
  selected_entity_fields_json: ['selected_entity_fields_json', 'selectedEntityFieldsJson'],
  selected_entity_allowed_values_json: ['selected_entity_allowed_values_json', 'selectedEntityAllowedValuesJson'],
  allowed_entities: ['allowed_entities', 'allowedEntities', 'allowed_entities_json', 'allowedEntitiesJson'],
  candidate_entities_json: ['candidate_entities_json', 'candidateEntitiesJson'],
  candidate_tables_json: ['candidate_tables_json', 'candidateTablesJson'],
  join_path_json: ['join_path_json', 'joinPathJson'],
  current_date: ['current_date', 'currentDate'],
  current_datetime: ['current_datetime', 'currentDateTime'],
  current_year: ['current_year', 'currentYear'],
  current_timezone: ['current_timezone', 'currentTimezone'],
  current_system_datetime: ['current_system_datetime', 'currentSystemDateTime'],
  current_system_timezone: ['current_system_timezone', 'currentSystemTimezone'],
};

/** Whole objects exposed to templates; any sub-path below them is accepted statically. */
export const TEMPLATE_ROOT_OBJECTS = [
  'session',
  'inputParams',
  'rawInputParams',
  'safeInputParams',
  'context',
  'schema',
  'schemaJson',
  'promptVars',
  'metadata',
] as const;

/** Session facts (the facts-document keys of §3.4), flattened to the top level. */
export const SESSION_FACT_NAMES = [
  'conversationId',
  'intent',
  'state',
  'schemaComplete',
  'hasContainerData',
  'containerData',
  'hasAnySchemaValue',
  'intentLocked',
  'intentLockReason',
  'missingRequiredFields',
  'missingFieldOptions',
  'userText',
  'standaloneQuery',
  'resolvedUserInput',
  'pendingClarificationQuestion',
  'lastLlmStage',
  'postIntentRule',
  'ruleExecutionSource',
  'ruleExecutionOrigin',
  'lastLlmOutput',
  'stepInfos',
  'payload',
  'turnNumber',
] as const;

/** Response metadata published to EXACT/DERIVED renders. */
export const RESPONSE_METADATA_NAMES = [
  'outputFormat',
  'responseType',
  'derivationHint',
  'jsonSchema',
  'exactText',
] as const;

/** Input params the engine itself writes (Java ConvEngineInputParamKey), flattened to the top level. */
export const SYSTEM_INPUT_PARAM_NAMES = [
  'missing_fields',
  'missing_field_options',
  'schema_description',
  'schema_field_details',
  'schema_id',
  'schema_json',
  'intent_scores',
  'intent_top3',
  'intent_collision_candidates',
  'followups',
  'agentResolver',
  'post_intent_rule',
  'rule_execution_source',
  'rule_execution_origin',
  'rule_phase',
  'rule_agent_post_intent',
  'rule_agent_post_mcp',
  'rule_tool_post_execution',
  'dialogue_act',
  'dialogue_act_confidence',
  'dialogue_act_source',
  'dialogue_act_regex',
  'dialogue_act_regex_confidence',
  'dialogue_act_llm_candidate',
  'dialogue_act_llm_confidence',
  'dialogue_act_llm_standalone_query',
  'dialogue_act_guard_applied',
  'dialogue_act_guard_reason',
  'routing_decision',
  'skip_schema_extraction',
  'correction_applied',
  'correction_target_field',
  'correction_rejected_field',
  'correction_rejected_reason',
  'policy_decision',
  'skip_intent_resolution',
  'pending_action_key',
  'pending_action_result',
  'pending_action_runtime_status',
  'pending_action_disambiguation_required',
  'sanitized_user_text',
  'guardrail_blocked',
  'guardrail_reason',
  'skip_tool_execution',
  'skip_pending_action_execution',
  'tool_request',
  'tool_result',
  'tool_status',
  'state_graph_valid',
  'state_graph_soft_block',
  'memory_recall',
  'memory_session_summary',
  'mcp_action',
  'mcp_tool_code',
  'mcp_tool_group',
  'mcp_tool_args',
  'mcp_operation_tag',
  'mcp_final_answer',
  'mcp_status',
  'options',
] as const;

const ALIAS_TO_CANONICAL = new Map<string, string>(
  Object.entries(STEP_VARIABLE_ALIASES).flatMap(([canonical, aliases]) => aliases.map((a) => [a, canonical] as const))
);

/** Every name a template may start a variable path with. */
export const KNOWN_TEMPLATE_ROOTS: ReadonlySet<string> = new Set<string>([
  ...ALIAS_TO_CANONICAL.keys(),
  ...TEMPLATE_ROOT_OBJECTS,
  ...SESSION_FACT_NAMES,
  ...RESPONSE_METADATA_NAMES,
  ...SYSTEM_INPUT_PARAM_NAMES,
]);

export function isKnownTemplateRoot(name: string): boolean {
  return KNOWN_TEMPLATE_ROOTS.has(name);
}

/** The canonical step-variable name for an alias (`userInput` → `user_input`), or undefined. */
export function canonicalTemplateVariable(name: string): string | undefined {
  return ALIAS_TO_CANONICAL.get(name);
}

/** Every alias of a step variable, canonical name first; [] when it is not a step variable. */
export function templateVariableAliases(canonical: string): readonly string[] {
  return STEP_VARIABLE_ALIASES[canonical] ?? [];
}
