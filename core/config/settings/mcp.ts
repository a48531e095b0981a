import { DEFAULT_APPROVAL_TIMEOUT_MS } from '../../mcp/constants';
import {
  DEFAULT_PLANNER_SYSTEM_PROMPT,
  DEFAULT_PLANNER_USER_PROMPT,
  DEFAULT_SEMANTIC_QUERY_SYSTEM_PROMPT,
  DEFAULT_SEMANTIC_QUERY_USER_PROMPT,
} from '../../mcp/prompts';
import { defineSetting, type SettingDefinition } from '../setting';

/** What db.semantic.query renders its prompts with (activities/tools/semantic/query.ts). */
const SEMANTIC_QUERY_VARIABLES = ['question', 'canonical_intent', 'semantic_catalog', 'retry_feedback', 'attempt'];

/** Tunables of the MCP planner loop and tools. */
export const McpLoopSettings = {
  maxLoops: defineSetting({
    configType: 'McpToolStep',
    configKey: 'MCP_TOOL_MAX_LOOPS',
    kind: 'int',
    min: 1,
    // Each iteration is a model call and a tool call in the turn's history, which Temporal caps (51,200 events).
    max: 100,
    default: 5,
    description: 'Planner iterations per turn before toolExecutionAbrupted is set; at most 100.',
  }),
  approvalTimeoutMs: defineSetting({
    configType: 'McpToolStep',
    configKey: 'APPROVAL_TIMEOUT_MS',
    kind: 'int',
    min: 1000,
    default: DEFAULT_APPROVAL_TIMEOUT_MS,
    description:
      'How long a requires_approval tool call waits for a decision when its row sets no approval_timeout_ms.',
  }),
};

/** The configured next-tool guardrail (§6.4); the semantic sequence guard is always on. */
export const McpGuardrailSettings = {
  enabled: defineSetting({
    configType: 'McpGuardrail',
    configKey: 'ENABLED',
    kind: 'boolean',
    default: false,
    description: 'Check each planner-proposed tool against ALLOWED_NEXT_BY_CURRENT_TOOL.',
  }),
  failClosed: defineSetting({
    configType: 'McpGuardrail',
    configKey: 'FAIL_CLOSED',
    kind: 'boolean',
    default: false,
    description: 'Block a tool when the map has no entry for the current tool (default: allow).',
  }),
  allowedNext: defineSetting({
    configType: 'McpGuardrail',
    configKey: 'ALLOWED_NEXT_BY_CURRENT_TOOL',
    kind: 'json',
    default: {},
    description: 'JSON object: current tool code (or __START__) → array of tool codes allowed next.',
  }),
};

export const McpPlannerSettings = {
  systemPrompt: defineSetting({
    configType: 'McpPlanner',
    configKey: 'SYSTEM_PROMPT',
    kind: 'string',
    template: true,
    default: DEFAULT_PLANNER_SYSTEM_PROMPT,
    description: 'Legacy planner system prompt, used when no ce_mcp_planner row matches.',
  }),
  userPrompt: defineSetting({
    configType: 'McpPlanner',
    configKey: 'USER_PROMPT',
    kind: 'string',
    template: true,
    default: DEFAULT_PLANNER_USER_PROMPT,
    description: 'Legacy planner user prompt, used when no ce_mcp_planner row matches.',
  }),
  maxObservations: defineSetting({
    configType: 'McpPlanner',
    configKey: 'MCP_PLANNER_MAX_OBSERVATIONS_COUNT',
    kind: 'int',
    min: 0,
    default: 2,
    description: 'Most recent observations shown to the planner (0: all).',
  }),
  maxObservationChars: defineSetting({
    configType: 'McpPlanner',
    configKey: 'MCP_PLANNER_MAX_OBS_CHARS',
    kind: 'int',
    min: 1000,
    default: 6000,
    description: 'Character budget of one observation summary shown to the planner.',
  }),
};

export const McpSqlSettings = {
  statementTimeoutMs: defineSetting({
    configType: 'McpDbExecutor',
    configKey: 'STATEMENT_TIMEOUT_MS',
    kind: 'int',
    min: 100,
    default: 5000,
    description: 'statement_timeout of every SQL tool query (SET LOCAL inside its read-only transaction).',
  }),
  postgresQueryMaxRows: defineSetting({
    configType: 'PostgresQueryToolHandler',
    configKey: 'MAX_ROWS',
    kind: 'int',
    min: 1,
    default: 100,
    description: 'Rows returned by postgres.query (more are cut off with a warning).',
  }),
  lockTimeoutMs: defineSetting({
    configType: 'McpDbExecutor',
    configKey: 'LOCK_TIMEOUT_MS',
    kind: 'int',
    min: 10,
    default: 1000,
    description: 'lock_timeout of every SQL tool query: a tool never waits long behind a lock.',
  }),
  maxResultBytes: defineSetting({
    configType: 'McpDbExecutor',
    configKey: 'MAX_RESULT_BYTES',
    kind: 'int',
    min: 1024,
    default: 1024 * 1024,
    description: 'Bytes of rows (as text) a SQL tool query may return; rows past the cap are cut off with a warning.',
  }),
  businessSchemas: defineSetting({
    configType: 'McpDbExecutor',
    configKey: 'BUSINESS_SCHEMAS',
    kind: 'csv',
    default: ['business'],
    description:
      'Schemas SQL tools may read (the guardrail refuses every other schema; the tools role needs SELECT on each).',
  }),
};

export const McpSemanticSettings = {
  clarificationThreshold: defineSetting({
    configType: 'SemanticInterpretService',
    configKey: 'CLARIFICATION_CONFIDENCE_THRESHOLD',
    kind: 'number',
    min: 0,
    max: 1,
    default: 0.8,
    description: 'Interpretations below this confidence ask the user to clarify.',
  }),
  sqlRetryMaxAttempts: defineSetting({
    configType: 'SemanticLlmQueryService',
    configKey: 'SQL_RETRY_MAX_ATTEMPTS',
    kind: 'int',
    min: 1,
    default: 3,
    description: 'SQL generations tried (with the guardrail feedback) before db.semantic.query answers unsupported.',
  }),
  querySystemPrompt: defineSetting({
    configType: 'SemanticLlmQueryService',
    configKey: 'SYSTEM_PROMPT',
    kind: 'string',
    template: true,
    templateVariables: SEMANTIC_QUERY_VARIABLES,
    default: DEFAULT_SEMANTIC_QUERY_SYSTEM_PROMPT,
    description: 'System prompt of the SQL generation call of db.semantic.query.',
  }),
  queryUserPrompt: defineSetting({
    configType: 'SemanticLlmQueryService',
    configKey: 'USER_PROMPT',
    kind: 'string',
    template: true,
    templateVariables: SEMANTIC_QUERY_VARIABLES,
    default: DEFAULT_SEMANTIC_QUERY_USER_PROMPT,
    description: 'User prompt of the SQL generation call of db.semantic.query.',
  }),
};

export const mcpSettings: readonly SettingDefinition[] = [
  ...Object.values(McpLoopSettings),
  ...Object.values(McpGuardrailSettings),
  ...Object.values(McpPlannerSettings),
  ...Object.values(McpSqlSettings),
  ...Object.values(McpSemanticSettings),
];
