/**
 * The closed vocabularies of the config tables: every enum a column may hold. Validation rejects
 * other values; runtime code uses the same lists so the two can never disagree.
 */
export const RULE_TYPES = ['EXACT', 'REGEX', 'JSON_PATH', 'CONTEXT_JSON_PATH'] as const;
export type RuleType = (typeof RULE_TYPES)[number];

export const RULE_ACTIONS = [
  'SET_STATE',
  'SET_INTENT',
  'SET_INPUT_PARAM',
  'SET_JSON',
  'SET_DIALOGUE_ACT',
  'GET_CONTEXT',
  'GET_SCHEMA_JSON',
  'GET_SESSION',
  'SHORT_CIRCUIT',
  'SET_TASK',
] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

export const DIALOGUE_ACTS = [
  'AFFIRM',
  'NEGATE',
  'ANSWER',
  'EDIT',
  'RESET',
  'QUESTION',
  'NEW_REQUEST',
  'GREETING',
] as const;
export type DialogueAct = (typeof DIALOGUE_ACTS)[number];

export const CLASSIFIER_TYPES = ['REGEX', 'CONTAINS', 'STARTS_WITH', 'EXACT'] as const;
export const POLICY_TYPES = ['REGEX', 'CONTAINS', 'STARTS_WITH'] as const;
export const RESPONSE_TYPES = ['EXACT', 'DERIVED'] as const;
export const RESPONSE_OUTPUT_FORMATS = ['TEXT', 'JSON'] as const;
export const PROMPT_OUTPUT_FORMATS = ['TEXT', 'JSON', 'SCHEMA_JSON', 'SEMANTIC_INTERPRET'] as const;
export const SCHEMA_TYPES = ['SCHEMA_JSON'] as const;

/** §5.4; unknown or blank means NORMAL at runtime, so validation only warns. */
export const INTERACTION_MODES = [
  'NORMAL',
  'IDLE',
  'COLLECT',
  'CONFIRM',
  'PROCESSING',
  'FINAL',
  'ERROR',
  'DISAMBIGUATE',
  'FOLLOW_UP',
  'PENDING_ACTION',
  'REVIEW',
] as const;
export const INTERACTION_CAPABILITIES = ['affirm', 'edit', 'retry', 'reset'] as const;

export const TOOL_SIDE_EFFECTS = ['READ_ONLY', 'IDEMPOTENT_WRITE', 'NON_IDEMPOTENT_WRITE'] as const;
/** What a tool call does once its automatic retries are used up (issue #22). */
export const TOOL_RETRIES_EXHAUSTED_POLICIES = ['ANSWER', 'HOLD'] as const;
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const HTTP_AUTH_KINDS = ['NONE', 'API_KEY', 'BEARER'] as const;
/**
 * The only environment variables an HTTP tool row may read (`{{env.…}}`, auth_secret_env): a config
 * row can never pull DATABASE_URL or an API key meant for something else.
 */
export const TOOL_ENV_PREFIX = 'CONVENGINE_TOOL_';
export const HTTP_MAPPING_KINDS = ['RAW_JSON', 'JSON_PATH', 'FIELD_TEMPLATE', 'TEXT'] as const;
export const SQL_GUARDRAIL_RULE_TYPES = ['ALLOW_FUNCTION', 'BLOCK_FUNCTION', 'BLOCK_KEYWORD'] as const;

/** Tool groups this engine can execute, with the aliases the Java engine accepted (§6.7). */
export const TOOL_GROUPS = ['DB', 'HTTP_API'] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];
const TOOL_GROUP_ALIASES: Readonly<Record<string, ToolGroup>> = {
  DB: 'DB',
  MCP_DB: 'DB',
  DATABASE: 'DB',
  SQL: 'DB',
  HTTP_API: 'HTTP_API',
  HTTP: 'HTTP_API',
  API: 'HTTP_API',
};

/** The canonical group for a stored tool_group (blank means DB, as in Java); null when unknown. */
export function normalizeToolGroup(raw: string | null | undefined): ToolGroup | null {
  const key = (raw ?? '').trim().toUpperCase();
  if (key === '') return 'DB';
  return TOOL_GROUP_ALIASES[key] ?? null;
}

/**
 * What tool codes are matched by, everywhere (scope, guard, policy, dispatch, handlers, observations): a code
 * with its case and surrounding spaces ignored. One rule, because two that differ let a tool pass one check
 * and go missing at the next.
 */
export function toolCodeKey(toolCode: string | null | undefined): string {
  return (toolCode ?? '').trim().toLowerCase();
}

/** DB tools implemented by the engine itself; they need no ce_mcp_db_tool row. */
export const BUILTIN_DB_TOOL_CODES = ['postgres.query', 'db.semantic.interpret', 'db.semantic.query'] as const;

export function isBuiltinDbTool(toolCode: string): boolean {
  return (BUILTIN_DB_TOOL_CODES as readonly string[]).includes(toolCodeKey(toolCode));
}

/** Case-insensitive membership; returns the canonical (upper-case) value or null. */
export function oneOf<T extends string>(values: readonly T[], raw: string | null | undefined): T | null {
  const key = (raw ?? '').trim().toUpperCase();
  return (values as readonly string[]).includes(key) ? (key as T) : null;
}
