import { httpTemplateArgs } from '../mcp/tool-input-schema';
import type { ConfigRows, ConfigViolation } from './types';

/**
 * `convengine validate-config --explain` (issue #21): for each violation, the fix as SQL an
 * author can edit and run. The violations a config written for the Java engine meets (see
 * docs/migrating-from-java.md) get a specific statement built from the offending row; any other
 * gets the statement to inspect the row and, if it is not needed, to disable it.
 */
const PRIMARY_KEYS: Record<string, string> = {
  ce_config: 'config_id',
  ce_intent: 'intent_code',
  ce_intent_classifier: 'classifier_id',
  ce_output_schema: 'schema_id',
  ce_prompt_template: 'template_id',
  ce_response: 'response_id',
  ce_rule: 'rule_id',
  ce_policy: 'policy_id',
  ce_pending_action: 'pending_action_id',
  ce_mcp_tool: 'tool_id',
  ce_mcp_db_tool: 'tool_id',
  ce_mcp_http_tool: 'tool_id',
  ce_mcp_planner: 'planner_id',
  ce_verbose: 'verbose_id',
  ce_mcp_sql_guardrail: 'guardrail_id',
  ce_semantic_concept: 'concept_id',
  ce_semantic_synonym: 'synonym_id',
  ce_semantic_entity: 'entity_id',
  ce_semantic_query_class: 'query_class_id',
  ce_semantic_mapping: 'mapping_id',
  ce_semantic_join_path: 'join_path_id',
};

const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;

function keyLiteral(v: ConfigViolation): string {
  return /^\d+$/.test(v.id) ? v.id : quote(v.id);
}

function schemaFor(names: Iterable<string>): string {
  const properties: Record<string, { type: string }> = {};
  for (const name of names) properties[name] = { type: 'string' };
  return JSON.stringify({ type: 'object', properties, required: Object.keys(properties) });
}

type Explainer = (v: ConfigViolation, match: RegExpExecArray, rows: ConfigRows) => string;

const missingHttpRow: Explainer = (v, m) =>
  [
    `-- ${m[1]} was a handler class in the Java engine; here it is a table row. Set the URL, method and`,
    `-- the JSON Schema of its arguments (input_schema: the planner is shown it; other arguments are refused).`,
    `INSERT INTO ce_mcp_http_tool (tool_id, http_method, url_template, query_params, input_schema)`,
    `VALUES (${v.id}, 'GET', '{{env.CONVENGINE_TOOL_<NAME>_URL}}/<path>', '{"<arg>": "{{args.<arg>}}"}',`,
    `        '{"type": "object", "properties": {"<arg>": {"type": "string"}}, "required": ["<arg>"]}');`,
  ].join('\n');

const missingDbRow: Explainer = (v) =>
  [
    `INSERT INTO ce_mcp_db_tool (tool_id, sql_template, param_schema)`,
    `VALUES (${v.id}, 'select … from … where … = :<arg>',`,
    `        '{"type": "object", "properties": {"<arg>": {"type": "string"}}, "required": ["<arg>"]}');`,
  ].join('\n');

const missingInputSchema: Explainer = (v, _m, rows) => {
  const row = rows.mcpHttpTools.find((h) => String(h.toolId) === v.id);
  const schema = schemaFor(row ? httpTemplateArgs(row) : []);
  return [
    `-- List every argument the tool takes; anything else the planner sends is refused, never forwarded.`,
    `UPDATE ce_mcp_http_tool SET input_schema = ${quote(schema)}`,
    `WHERE tool_id = ${v.id};`,
  ].join('\n');
};

const undeclaredArg: Explainer = (v, m) =>
  [
    `UPDATE ce_mcp_http_tool`,
    `SET input_schema = jsonb_set(input_schema, '{properties,${m[1]}}', '{"type": "string"}')`,
    `WHERE tool_id = ${v.id};`,
  ].join('\n');

/** A prompt template for the output format, intent and state a violation names (m[1], m[2], m[3]). */
const insertTemplate = (m: RegExpExecArray, systemPrompt: string, userPrompt: string): string[] => [
  `INSERT INTO ce_prompt_template (intent_code, state_code, output_format, system_prompt, user_prompt, enabled)`,
  `VALUES (${quote(m[2] as string)}, ${quote(m[3] as string)}, ${quote(m[1] as string)},`,
  `        ${quote(systemPrompt)}, ${quote(userPrompt)}, true);`,
];

const derivedWithoutTemplate: Explainer = (_v, m) =>
  [
    `-- The Java engine accepted this at load and failed when the response was first derived.`,
    ...insertTemplate(m, '<how to answer>', 'User message: {{user_input}}\nContext: {{context}}'),
  ].join('\n');

const schemaWithoutTemplate: Explainer = (_v, m) =>
  [
    `-- The schema's fields are extracted with this prompt; without it every turn that reaches the schema fails.`,
    ...insertTemplate(m, 'Extract the fields of {{schema}} from the message.', 'User message: {{user_input}}'),
  ].join('\n');

const unknownPhase: Explainer = (v) =>
  [
    `-- Phases: POST_CLASSIFIER_INTENT, POST_AGENT_INTENT, POST_SEMANTIC_INTERPRET, POST_TOOL_EXECUTION,`,
    `-- POST_AGENT_MCP, PRE_RESPONSE_RESOLUTION (legacy names such as AGENT_POST_MCP are accepted).`,
    `UPDATE ce_rule SET phase = 'PRE_RESPONSE_RESOLUTION' WHERE rule_id = ${v.id};`,
  ].join('\n');

const unknownToolGroup: Explainer = (v) =>
  `UPDATE ce_mcp_tool SET tool_group = 'HTTP_API' /* or 'DB' */ WHERE tool_id = ${v.id};`;

const unlistedIdentifier: Explainer = (v, m) =>
  [
    `-- The Java engine took any plain identifier the arguments named when allowed_identifiers was not set; here a`,
    `-- \${${m[1]}} placeholder takes only the identifiers listed for it. List the tables or columns it may name.`,
    `UPDATE ce_mcp_db_tool`,
    `SET allowed_identifiers = coalesce(allowed_identifiers, '{}') || '{"${m[1]}": ["<table or column>"]}'`,
    `WHERE tool_id = ${v.id};`,
  ].join('\n');

const EXPLAINERS: [RegExp, Explainer][] = [
  [/^HTTP_API tool (\S+) has no ce_mcp_http_tool row/, missingHttpRow],
  [/^DB tool (\S+) has no ce_mcp_db_tool row/, missingDbRow],
  [/has neither input_schema nor body_template/, missingInputSchema],
  [/reads \{\{args\.([^}]+)\}\}, which input_schema does not declare/, undeclaredArg],
  [
    /DERIVED response has no enabled ce_prompt_template with output_format=(\S+) for intent (\S+) \/ state (\S+)/,
    derivedWithoutTemplate,
  ],
  [
    /^has no enabled ce_prompt_template with output_format=(\S+) for intent (\S+) \/ state (\S+) \(or ANY\)/,
    schemaWithoutTemplate,
  ],
  [/unknown phase|phase "[^"]*" is not/i, unknownPhase],
  [/unknown tool_group/, unknownToolGroup],
  [/uses \$\{(\w+)\}, but allowed_identifiers lists no identifier/, unlistedIdentifier],
];

function generic(v: ConfigViolation): string {
  const key = PRIMARY_KEYS[v.table];
  if (!key) return `-- Correct the ${v.table} row named above.`;
  const where = `WHERE ${key} = ${keyLiteral(v)}`;
  const lines = [`-- Correct the column named above:`, `SELECT * FROM ${v.table} ${where};`];
  if (v.table !== 'ce_mcp_db_tool' && v.table !== 'ce_mcp_http_tool') {
    lines.push(`-- or, if the row is not needed, disable it:`, `UPDATE ${v.table} SET enabled = false ${where};`);
  }
  return lines.join('\n');
}

/** The fix of one violation, as SQL (comments included). */
export function explainViolation(v: ConfigViolation, rows: ConfigRows): string {
  for (const [pattern, explain] of EXPLAINERS) {
    const match = pattern.exec(v.reason);
    if (match) return explain(v, match, rows);
  }
  return generic(v);
}
