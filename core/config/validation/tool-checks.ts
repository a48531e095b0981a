import { callerPicksOrigin } from '../../mcp/http-url-template';
import { HTTP_PLACEHOLDER } from '../../mcp/http-body-template';
import { isJsonObject, type Json } from '../../json';
import { identifierExpansions, identifierPlaceholders } from '../../mcp/db-identifiers';
import { authoredVariableParts } from '../../templates';
import { parseResponseMapping } from '../response-mapping';
import type { McpDbToolRow, McpHttpToolRow, McpToolRow } from '../tool-rows';
import {
  HTTP_AUTH_KINDS,
  HTTP_METHODS,
  TOOL_RETRIES_EXHAUSTED_POLICIES,
  TOOL_ENV_PREFIX,
  TOOL_SIDE_EFFECTS,
  isBuiltinDbTool,
  normalizeToolGroup,
  oneOf,
  toolCodeKey,
} from '../vocabulary';
import { isBlank, repeatedKeys, type ValidationContext } from './context';
import { isStringArray, isStringMap } from './schema-checks';
import { checkHttpBodyTemplate, checkHttpInputSchema } from './tool-input-checks';
import { checkSqlGuardrails } from './sql-guardrail-checks';

export function checkTools(ctx: ValidationContext): void {
  const dbRows = new Map(ctx.rows.mcpDbTools.map((d) => [d.toolId, d]));
  const httpRows = new Map(ctx.rows.mcpHttpTools.map((h) => [h.toolId, h]));
  for (const tool of ctx.rows.mcpTools) {
    if (!tool.enabled) continue;
    checkToolRow(ctx, tool);
    const group = normalizeToolGroup(tool.toolGroup);
    const db = dbRows.get(tool.toolId);
    const http = httpRows.get(tool.toolId);
    if (group === 'DB' && !db && ctx.has('mcpDbTools') && !isBuiltinDbTool(tool.toolCode)) {
      ctx.sink.violation('ce_mcp_tool', tool.toolId, `DB tool ${tool.toolCode} has no ce_mcp_db_tool row`);
    }
    if (group === 'HTTP_API' && !http && ctx.has('mcpHttpTools')) {
      ctx.sink.violation('ce_mcp_tool', tool.toolId, `HTTP_API tool ${tool.toolCode} has no ce_mcp_http_tool row`);
    }
    if (db) checkDbTool(ctx, db);
    if (http) checkHttpTool(ctx, http);
    if ((http && group !== 'HTTP_API') || (db && group !== 'DB')) {
      ctx.sink.warning(
        'ce_mcp_tool',
        tool.toolId,
        `tool_group ${tool.toolGroup} ignores its ${http ? 'ce_mcp_http_tool' : 'ce_mcp_db_tool'} row`
      );
    }
  }
  // A partial tree without ce_mcp_tool: which rows are enabled tools is unknown, so each is checked on its own.
  if (!ctx.has('mcpTools')) {
    ctx.rows.mcpDbTools.forEach((d) => checkDbTool(ctx, d));
    ctx.rows.mcpHttpTools.forEach((h) => checkHttpTool(ctx, h));
  }
  checkToolCodes(ctx);
  checkSqlGuardrails(ctx);
}

/**
 * A tool is looked up by its code case-insensitively, enabled or not (core/mcp/tools.ts): of get_order and
 * GET_ORDER one is never called. The same code twice would also break tool_code's UNIQUE constraint.
 */
function checkToolCodes(ctx: ValidationContext): void {
  const code = (t: McpToolRow) => (isBlank(t.toolCode) ? null : toolCodeKey(t.toolCode));
  for (const t of ctx.rows.mcpTools) {
    // Matched with the spaces ignored, but shown, logged and audited as written: one spelling everywhere.
    if (!isBlank(t.toolCode) && t.toolCode !== t.toolCode.trim()) {
      ctx.sink.violation(
        'ce_mcp_tool',
        t.toolId,
        `tool_code ${JSON.stringify(t.toolCode)} has spaces around it; write it as ${JSON.stringify(t.toolCode.trim())}`
      );
    }
  }
  for (const [first, repeat] of repeatedKeys(ctx.rows.mcpTools, code)) {
    ctx.sink.violation(
      'ce_mcp_tool',
      repeat.toolId,
      `tool_code ${repeat.toolCode} is the tool_code of ce_mcp_tool[${first.toolId}] (${first.toolCode}); tool codes are matched case-insensitively, so one would shadow the other`
    );
  }
}

function positive(
  ctx: ValidationContext,
  table: string,
  id: number,
  column: string,
  value: number | null,
  min: number
): void {
  if (value !== null && !(Number.isFinite(value) && value >= min))
    ctx.sink.violation(table, id, `${column} must be >= ${min} (got ${value})`);
}

function checkToolRow(ctx: ValidationContext, tool: McpToolRow): void {
  const id = tool.toolId;
  if (isBlank(tool.toolCode)) ctx.sink.violation('ce_mcp_tool', id, 'tool_code is blank');
  if (normalizeToolGroup(tool.toolGroup) === null) {
    ctx.sink.violation(
      'ce_mcp_tool',
      id,
      `unknown tool_group "${tool.toolGroup}" (executable groups: DB (aliases MCP_DB, DATABASE, SQL), HTTP_API (aliases HTTP, API))`
    );
  }
  if (!oneOf(TOOL_SIDE_EFFECTS, tool.sideEffect)) {
    ctx.sink.violation(
      'ce_mcp_tool',
      id,
      `side_effect "${tool.sideEffect}" is not one of ${TOOL_SIDE_EFFECTS.join(', ')}`
    );
  }
  positive(ctx, 'ce_mcp_tool', id, 'max_attempts', tool.maxAttempts, 1);
  positive(ctx, 'ce_mcp_tool', id, 'initial_interval_ms', tool.initialIntervalMs, 1);
  positive(ctx, 'ce_mcp_tool', id, 'backoff_coefficient', tool.backoffCoefficient, 1);
  positive(ctx, 'ce_mcp_tool', id, 'max_interval_ms', tool.maxIntervalMs, 1);
  if (tool.maxIntervalMs !== null && tool.initialIntervalMs !== null && tool.maxIntervalMs < tool.initialIntervalMs) {
    // Temporal refuses such a retry policy, so every turn scheduling the tool would be stuck.
    ctx.sink.violation(
      'ce_mcp_tool',
      id,
      `max_interval_ms (${tool.maxIntervalMs}) must be >= initial_interval_ms (${tool.initialIntervalMs})`
    );
  }
  positive(ctx, 'ce_mcp_tool', id, 'start_to_close_timeout_ms', tool.startToCloseTimeoutMs, 1);
  positive(ctx, 'ce_mcp_tool', id, 'approval_timeout_ms', tool.approvalTimeoutMs, 1);
  if (tool.onRetriesExhausted != null && !oneOf(TOOL_RETRIES_EXHAUSTED_POLICIES, tool.onRetriesExhausted)) {
    ctx.sink.violation(
      'ce_mcp_tool',
      id,
      `on_retries_exhausted "${tool.onRetriesExhausted}" is not one of ${TOOL_RETRIES_EXHAUSTED_POLICIES.join(', ')}`
    );
  }
  positive(ctx, 'ce_mcp_tool', id, 'hold_timeout_ms', tool.holdTimeoutMs ?? null, 1);
}

const SQL_START = /^\s*(?:(?:--[^\n]*\n|\/\*[\s\S]*?\*\/)\s*)*(select|with)\b/i;

function checkDbTool(ctx: ValidationContext, d: McpDbToolRow): void {
  const fail = (reason: string) => ctx.sink.violation('ce_mcp_db_tool', d.toolId, reason);
  if (isBlank(d.sqlTemplate)) fail('sql_template is blank');
  else if (!SQL_START.test(d.sqlTemplate)) fail('sql_template must be a read-only query starting with SELECT or WITH');
  else checkDbToolSql(ctx, d, fail);
  if (!(Number.isInteger(d.maxRows) && d.maxRows >= 1)) fail(`max_rows must be a positive integer (got ${d.maxRows})`);
  const identifiers: Json | null = d.allowedIdentifiers;
  if (
    identifiers !== null &&
    !(isJsonObject(identifiers) && Object.values(identifiers).every((v) => isStringArray(v)))
  ) {
    fail('allowed_identifiers must be an object of name → array of allowed identifier strings');
  }
  const declared =
    isJsonObject(d.paramSchema) && isJsonObject(d.paramSchema.properties) ? d.paramSchema.properties : null;
  if (declared !== null) {
    const withoutStrings = d.sqlTemplate.replace(/'(?:[^']|'')*'/g, "''");
    for (const m of withoutStrings.matchAll(/(?<![:\w]):([A-Za-z_]\w*)/g)) {
      const name = m[1] as string;
      if (name !== 'limit' && !Object.hasOwn(declared, name))
        fail(`sql_template binds :${name}, which param_schema does not declare`);
    }
    for (const name of identifierPlaceholders(d.sqlTemplate)) {
      if (!Object.hasOwn(declared, name)) fail(`sql_template uses \${${name}}, which param_schema does not declare`);
    }
  }
}

/**
 * The template as the tool would run it: each `${name}` expanded with each combination of its allowed identifiers
 * (a placeholder with none is refused, as the tool refuses it), and every expansion through the SQL guardrail.
 */
function checkDbToolSql(ctx: ValidationContext, d: McpDbToolRow, fail: (reason: string) => void): void {
  const expanded = identifierExpansions(d.sqlTemplate, d.allowedIdentifiers);
  if (!expanded.ok) return fail(expanded.reason);
  // Without the business-schemas setting (a partial tree) the verdict is unknown; without the ce_mcp_sql_guardrail
  // rows an ALLOW_FUNCTION row might lift a function refusal, so only what no row can change is checked. A tool with
  // safe_mode off runs without the function/keyword policy, so it is not checked against it either.
  if (!ctx.has('configs')) return;
  const enforcePolicy = d.safeMode && ctx.has('sqlGuardrails');
  for (const sql of expanded.expansions) {
    const refused = ctx.checkToolSql?.(sql, ctx.rows, { enforcePolicy });
    if (!refused) continue;
    const as = sql === d.sqlTemplate ? '' : ` (expanded as: ${sql})`;
    return fail(`sql_template is refused by the SQL guardrail: ${refused}${as}`);
  }
}

const HTTP_CTX_KEYS = ['conversationId', 'turnNumber', 'userId', 'tenantId'];
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
const WHOLE_HTTP_PLACEHOLDER = new RegExp(`^${HTTP_PLACEHOLDER.source}$`);

/** HTTP request templates may only read {{args.*}}, {{ctx.<known>}} and {{env.CONVENGINE_TOOL_*}}. */
function checkHttpTemplate(ctx: ValidationContext, id: number, column: string, text: string | null): void {
  if (isBlank(text)) return;
  const fail = (reason: string) => ctx.sink.violation('ce_mcp_http_tool', id, `${column}: ${reason}`);
  let parts;
  try {
    parts = authoredVariableParts(text as string);
  } catch (err) {
    return fail((err as Error).message);
  }
  for (const { path: ref, raw } of parts) {
    // The HTTP renderer substitutes {{root.path}} only: any other spelling, a default or an index would be sent as written.
    if (!WHOLE_HTTP_PLACEHOLDER.test(raw)) {
      fail(`${raw} is not rendered in an HTTP tool; write it as {{${ref.root}.<name>}} (no default, no [index])`);
      continue;
    }
    const first = ref.segments[0];
    if (ref.root === 'args' && typeof first === 'string') continue;
    if (ref.root === 'ctx' && typeof first === 'string' && HTTP_CTX_KEYS.includes(first)) continue;
    if (ref.root === 'env' && typeof first === 'string' && first.startsWith(TOOL_ENV_PREFIX)) continue;
    fail(
      `${raw} is not available (use {{args.<name>}}, {{ctx.${HTTP_CTX_KEYS.join('|')}}} or {{env.CONVENGINE_TOOL_<NAME>}})`
    );
  }
}

function checkHttpTool(ctx: ValidationContext, h: McpHttpToolRow): void {
  const id = h.toolId;
  const fail = (reason: string) => ctx.sink.violation('ce_mcp_http_tool', id, reason);
  if (!oneOf(HTTP_METHODS, h.httpMethod))
    fail(`http_method "${h.httpMethod}" is not one of ${HTTP_METHODS.join(', ')}`);
  if (isBlank(h.urlTemplate)) fail('url_template is blank');
  else if (!/^(https?:\/\/|\{\{)/i.test(h.urlTemplate.trim()))
    fail('url_template must start with http://, https:// or a {{env.…}} base URL');
  else if (callerPicksOrigin(h.urlTemplate))
    fail(
      'url_template lets a call choose where it goes: the scheme, host and port (everything before the path) may ' +
        'hold only {{env.CONVENGINE_TOOL_<NAME>}}, never {{args.…}} or {{ctx.…}}; put arguments in the path or query'
    );
  checkHttpTemplate(ctx, id, 'url_template', h.urlTemplate);
  checkHttpTemplate(ctx, id, 'body_template', h.bodyTemplate);
  for (const [column, value] of [
    ['headers', h.headers],
    ['query_params', h.queryParams],
  ] as const) {
    if (value === null) continue;
    if (!isStringMap(value)) fail(`${column} must be an object of name → string value`);
    else for (const [name, v] of Object.entries(value)) checkHttpTemplate(ctx, id, `${column}.${name}`, v as string);
  }
  checkHttpAuth(ctx, h);
  checkHttpPolicy(ctx, h);
  checkHttpInputSchema(ctx, h);
  checkHttpBodyTemplate(ctx, h);
  const mapping = parseResponseMapping(h.responseMappingKind, h.responseMapping);
  if (typeof mapping === 'string') fail(mapping);
}

function checkHttpAuth(ctx: ValidationContext, h: McpHttpToolRow): void {
  const kind = oneOf(HTTP_AUTH_KINDS, h.authKind);
  if (!kind)
    return ctx.sink.violation(
      'ce_mcp_http_tool',
      h.toolId,
      `auth_kind "${h.authKind}" is not one of ${HTTP_AUTH_KINDS.join(', ')}`
    );
  if (kind === 'NONE') return;
  if (isBlank(h.authSecretEnv)) {
    ctx.sink.violation(
      'ce_mcp_http_tool',
      h.toolId,
      `auth_kind ${kind} needs auth_secret_env (the environment variable holding the secret)`
    );
  } else if (!ENV_NAME.test((h.authSecretEnv as string).trim())) {
    ctx.sink.violation(
      'ce_mcp_http_tool',
      h.toolId,
      `auth_secret_env "${h.authSecretEnv}" is not an environment variable name`
    );
  } else if (!(h.authSecretEnv as string).trim().startsWith(TOOL_ENV_PREFIX)) {
    // As the tool refuses at run time: a tool may not read DATABASE_URL, API_TOKEN or any other secret of ours.
    ctx.sink.violation(
      'ce_mcp_http_tool',
      h.toolId,
      `auth_secret_env must name a ${TOOL_ENV_PREFIX}* variable (got ${(h.authSecretEnv as string).trim()})`
    );
  }
}

function checkHttpPolicy(ctx: ValidationContext, h: McpHttpToolRow): void {
  const id = h.toolId;
  positive(ctx, 'ce_mcp_http_tool', id, 'connect_timeout_ms', h.connectTimeoutMs, 1);
  positive(ctx, 'ce_mcp_http_tool', id, 'read_timeout_ms', h.readTimeoutMs, 1);
  positive(ctx, 'ce_mcp_http_tool', id, 'max_attempts', h.maxAttempts, 1);
  positive(ctx, 'ce_mcp_http_tool', id, 'initial_backoff_ms', h.initialBackoffMs, 0);
  positive(ctx, 'ce_mcp_http_tool', id, 'max_backoff_ms', h.maxBackoffMs, 0);
  positive(ctx, 'ce_mcp_http_tool', id, 'backoff_multiplier', h.backoffMultiplier, 1);
  positive(ctx, 'ce_mcp_http_tool', id, 'circuit_failure_threshold', h.circuitFailureThreshold, 1);
  positive(ctx, 'ce_mcp_http_tool', id, 'circuit_open_ms', h.circuitOpenMs, 0);
  const codes: Json = h.retryStatusCodes;
  if (
    !Array.isArray(codes) ||
    !codes.every((c) => Number.isInteger(c) && (c as number) >= 100 && (c as number) <= 599)
  ) {
    ctx.sink.violation(
      'ce_mcp_http_tool',
      id,
      'retry_status_codes must be an array of HTTP status codes (integers 100-599)'
    );
  }
}
