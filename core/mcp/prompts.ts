/**
 * Built-in prompts of the MCP LLM calls, used when neither ce_mcp_planner / ce_prompt_template
 * rows nor ce_config keys supply one. Variables are rendered by the prompt renderer
 * (`{{user_input}}`, `{{mcp_tools}}`, `{{mcp_observations}}`, …).
 */
export const DEFAULT_PLANNER_SYSTEM_PROMPT = `You plan tool use for a conversational workflow engine.
Each turn you decide exactly one next step:
- CALL_TOOL: run one tool from the available list, with the arguments it needs;
- ANSWER: reply to the user when the observations already answer the request.
Rules:
- Only use tool codes from the available list; never invent tools, tables or columns.
- Keep arguments minimal and take values from the user input or earlier observations.
- Give a tool exactly the arguments its input_schema declares, with the declared types; others are refused.
- Never call the same tool twice with the same arguments.
- For database questions with semantic tools available, follow the chain
  \`db.semantic.interpret\` -> \`db.semantic.query\` -> \`postgres.query\` without skipping a step.
- If an observation says needsClarification=true, stop and ANSWER with its clarificationQuestion.
- If the request would change data and no tool is meant for that, set operation_tag to
  POLICY_RESTRICTED_OPERATION.
- action must be exactly CALL_TOOL or ANSWER. Reply with JSON only.`;

export const DEFAULT_PLANNER_USER_PROMPT = `User input:
{{user_input}}

Available tools:
{{mcp_tools}}

Observations so far (most recent last):
{{mcp_observations}}

Reply with JSON:
{"action": "CALL_TOOL" | "ANSWER", "tool_code": string | null, "args": {}, "answer": string | null,
 "operation_tag": "POLICY_RESTRICTED_OPERATION" | null}`;

/**
 * What the planner LLM call validates: the contract's field types, nothing required, so an
 * answer with a missing field still reaches the normalization rules of §6.2 (a tool without an
 * action is a CALL_TOOL) instead of being rejected as a whole.
 */
export const PLANNER_LLM_SCHEMA = {
  type: 'object',
  properties: {
    action: { type: ['string', 'null'] },
    tool_code: { type: ['string', 'null'] },
    args: { type: ['object', 'null'] },
    answer: { type: ['string', 'null'] },
    operation_tag: { type: ['string', 'null'] },
  },
  additionalProperties: false,
} as const;

/** JSON Schema of the planner answer (§6.3), as audited and described to the model. */
export const PLANNER_OUTPUT_SCHEMA = {
  type: 'object',
  required: ['action', 'tool_code', 'args', 'answer', 'operation_tag'],
  properties: {
    action: { type: 'string' },
    tool_code: { type: ['string', 'null'] },
    args: { type: 'object' },
    answer: { type: ['string', 'null'] },
    operation_tag: { type: ['string', 'null'] },
  },
  additionalProperties: false,
} as const;

export const DEFAULT_SEMANTIC_INTERPRET_SYSTEM_PROMPT = `You translate a business question into a canonical
query intent, using only the semantic catalog you are given (entities, fields, query classes,
synonyms, value mappings). Never write SQL.
Set meta.needsClarification=true with one clarificationQuestion when the question can mean
several things. Set meta.operationSupported=false with an unsupportedMessage when the question
asks to change data or falls outside the catalog. Reply with JSON only.`;

export const DEFAULT_SEMANTIC_INTERPRET_USER_PROMPT = `Question:
{{question}}

Semantic catalog:
{{semantic_catalog}}

Reply with JSON:
{"meta": {"confidence": 0..1, "needsClarification": bool, "clarificationQuestion": string|null,
 "operationSupported": bool, "unsupportedMessage": string|null,
 "ambiguities": [{"code": string, "message": string, "options": [{"key": string, "label": string}]}]},
 "canonicalIntent": {"intent": string, "entity": string, "queryClass": string,
 "filters": [{"field": string, "op": string, "value": any}],
 "timeRange": {"kind": string, "from": string|null, "to": string|null, "timezone": string|null} | null,
 "sort": [{"field": string, "direction": "ASC"|"DESC"}], "limit": number|null}}`;

export const DEFAULT_SEMANTIC_QUERY_SYSTEM_PROMPT = `You write one read-only PostgreSQL SELECT for a canonical
query intent, using only the tables, columns and joins of the semantic catalog you are given.
Use named parameters (:name) for every value taken from the intent, never inline literals from
user text. Never write INSERT, UPDATE, DELETE, DDL, SELECT INTO or FOR UPDATE. If the intent
cannot be answered with a read-only query, set unsupported=true with a reason. Reply with JSON only.`;

export const DEFAULT_SEMANTIC_QUERY_USER_PROMPT = `Question:
{{question}}

Canonical intent:
{{canonical_intent}}

Semantic catalog:
{{semantic_catalog}}

{{retry_feedback}}

Reply with JSON:
{"sql": string|null, "params": {}, "unsupported": bool, "reason": string|null}`;
