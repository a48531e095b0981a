import { bigint, boolean, integer, jsonb, numeric, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const id = (name: string) => bigint(name, { mode: 'number' }).primaryKey();
const enabled = () => boolean('enabled').notNull().default(true);
const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const ceMcpTool = pgTable('ce_mcp_tool', {
  toolId: id('tool_id'),
  toolCode: text('tool_code').notNull().unique(),
  toolGroup: text('tool_group').notNull(),
  intentCode: text('intent_code').notNull(),
  stateCode: text('state_code').notNull(),
  description: text('description'),
  sideEffect: text('side_effect').notNull().default('READ_ONLY'),
  requiresApproval: boolean('requires_approval').notNull().default(false),
  approvalTimeoutMs: integer('approval_timeout_ms'),
  maxAttempts: integer('max_attempts'),
  initialIntervalMs: integer('initial_interval_ms'),
  backoffCoefficient: numeric('backoff_coefficient', { precision: 5, scale: 2 }),
  maxIntervalMs: integer('max_interval_ms'),
  startToCloseTimeoutMs: integer('start_to_close_timeout_ms'),
  allowDirectRequest: boolean('allow_direct_request'),
  onRetriesExhausted: text('on_retries_exhausted').notNull().default('ANSWER'),
  holdTimeoutMs: integer('hold_timeout_ms'),
  enabled: enabled(),
  createdAt: createdAt(),
});

const toolRef = (name: string) =>
  bigint(name, { mode: 'number' })
    .primaryKey()
    .references(() => ceMcpTool.toolId, { onDelete: 'cascade' });

export const ceMcpDbTool = pgTable('ce_mcp_db_tool', {
  toolId: toolRef('tool_id'),
  dialect: text('dialect').notNull().default('POSTGRES'),
  sqlTemplate: text('sql_template').notNull(),
  paramSchema: jsonb('param_schema'),
  safeMode: boolean('safe_mode').notNull().default(true),
  maxRows: integer('max_rows').notNull().default(200),
  allowedIdentifiers: jsonb('allowed_identifiers'),
});

export const ceMcpHttpTool = pgTable('ce_mcp_http_tool', {
  toolId: toolRef('tool_id'),
  httpMethod: text('http_method').notNull().default('GET'),
  urlTemplate: text('url_template').notNull(),
  headers: jsonb('headers'),
  queryParams: jsonb('query_params'),
  bodyTemplate: text('body_template'),
  inputSchema: jsonb('input_schema'),
  authKind: text('auth_kind').notNull().default('NONE'),
  authHeaderName: text('auth_header_name'),
  authSecretEnv: text('auth_secret_env'),
  connectTimeoutMs: integer('connect_timeout_ms').notNull().default(2000),
  readTimeoutMs: integer('read_timeout_ms').notNull().default(5000),
  maxAttempts: integer('max_attempts').notNull().default(2),
  initialBackoffMs: integer('initial_backoff_ms').notNull().default(200),
  maxBackoffMs: integer('max_backoff_ms').notNull().default(2000),
  backoffMultiplier: numeric('backoff_multiplier', { precision: 5, scale: 2 }).notNull().default('2.0'),
  retryStatusCodes: jsonb('retry_status_codes').notNull().default([429, 502, 503, 504]),
  retryOnIoError: boolean('retry_on_io_error').notNull().default(true),
  circuitEnabled: boolean('circuit_enabled').notNull().default(true),
  circuitFailureThreshold: integer('circuit_failure_threshold').notNull().default(5),
  circuitOpenMs: integer('circuit_open_ms').notNull().default(30000),
  responseMappingKind: text('response_mapping_kind').notNull().default('RAW_JSON'),
  responseMapping: jsonb('response_mapping'),
});

export const ceMcpPlanner = pgTable('ce_mcp_planner', {
  plannerId: id('planner_id'),
  intentCode: text('intent_code').notNull(),
  stateCode: text('state_code').notNull(),
  systemPrompt: text('system_prompt').notNull(),
  userPrompt: text('user_prompt').notNull(),
  enabled: enabled(),
  createdAt: createdAt(),
});

export const ceMcpSqlGuardrail = pgTable('ce_mcp_sql_guardrail', {
  guardrailId: id('guardrail_id'),
  ruleType: text('rule_type').notNull(),
  matchValue: text('match_value').notNull(),
  description: text('description'),
  enabled: enabled(),
  createdAt: createdAt(),
});

/** Progress messages (issue #21, reference "Verbose messages"): not MCP-only, but scoped like the planner rows. */
export const ceVerbose = pgTable('ce_verbose', {
  verboseId: id('verbose_id'),
  intentCode: text('intent_code').notNull(),
  stateCode: text('state_code').notNull(),
  stepMatch: text('step_match').notNull().default('EXACT'),
  stepValue: text('step_value').notNull(),
  determinant: text('determinant').notNull(),
  ruleId: bigint('rule_id', { mode: 'number' }),
  toolCode: text('tool_code'),
  message: text('message'),
  errorMessage: text('error_message'),
  priority: integer('priority').notNull().default(100),
  enabled: enabled(),
  createdAt: createdAt(),
});
