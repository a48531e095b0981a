import type { Json, JsonObject } from '../json';

/**
 * Typed rows of every ce_* config table, as held in a snapshot. Field names follow the drizzle
 * schema (db/schema); timestamps are ISO strings and numerics are numbers so that a snapshot is
 * plain JSON (hashable, storable in ce_config_snapshot, safe to pass through event history).
 */
export interface ConfigRow {
  configId: number;
  configType: string;
  configKey: string;
  configValue: string | null;
  enabled: boolean;
}

export interface IntentRow {
  intentCode: string;
  description: string;
  priority: number;
  enabled: boolean;
  displayName: string | null;
  llmHint: string | null;
}

export type ClassifierType = 'REGEX' | 'CONTAINS' | 'STARTS_WITH' | 'EXACT';
export interface ClassifierRow {
  classifierId: number;
  intentCode: string;
  stateCode: string;
  ruleType: string;
  pattern: string;
  priority: number;
  enabled: boolean;
  description: string | null;
}

export interface OutputSchemaRow {
  schemaId: number;
  intentCode: string;
  stateCode: string;
  schemaType: string;
  jsonSchema: JsonObject;
  description: string | null;
  priority: number;
  enabled: boolean;
}

export interface PromptTemplateRow {
  templateId: number;
  intentCode: string;
  stateCode: string;
  outputFormat: string;
  systemPrompt: string | null;
  userPrompt: string | null;
  temperature: number | null;
  interactionMode: string | null;
  interactionContract: Json | null;
  description: string | null;
  enabled: boolean;
  createdAt: string;
}

export interface ResponseRow {
  responseId: number;
  intentCode: string;
  stateCode: string;
  outputFormat: string;
  responseType: string;
  exactText: string | null;
  derivationHint: string | null;
  jsonSchema: Json | null;
  priority: number;
  description: string | null;
  enabled: boolean;
}

export interface RuleRow {
  ruleId: number;
  /** Normalized phase (D3: legacy names such as AGENT_POST_MCP are mapped on load). */
  phase: string;
  /** The phase exactly as stored, for audits (`ruleDbPhase`). */
  dbPhase: string;
  intentCode: string;
  stateCode: string;
  ruleType: string;
  matchPattern: string;
  action: string;
  actionValue: string | null;
  priority: number;
  description: string | null;
  enabled: boolean;
}

export interface PolicyRow {
  policyId: number;
  ruleType: string;
  pattern: string;
  responseText: string;
  priority: number;
  description: string | null;
  enabled: boolean;
}

export interface PendingActionRow {
  pendingActionId: number;
  intentCode: string;
  stateCode: string;
  actionKey: string;
  beanName: string;
  methodNames: string;
  priority: number;
  description: string | null;
  enabled: boolean;
}

export type ToolSideEffect = 'READ_ONLY' | 'IDEMPOTENT_WRITE' | 'NON_IDEMPOTENT_WRITE';
export interface McpToolRow {
  toolId: number;
  toolCode: string;
  toolGroup: string;
  intentCode: string;
  stateCode: string;
  description: string | null;
  sideEffect: string;
  requiresApproval: boolean;
  approvalTimeoutMs: number | null;
  maxAttempts: number | null;
  initialIntervalMs: number | null;
  backoffCoefficient: number | null;
  maxIntervalMs: number | null;
  startToCloseTimeoutMs: number | null;
  /** May a request call it directly (tool_request, D21)? null: by class, see core/mcp/tool-policy.ts. */
  allowDirectRequest?: boolean | null;
  /**
   * ANSWER (default): a call out of retries fails for good — a planner call ends the planner loop with the tool
   * error (TOOL_ERROR), a direct call records it as its result; HOLD: the turn waits for an operator (#22).
   */
  onRetriesExhausted?: string | null;
  /** How long a HOLD waits for an operator before it falls back to ANSWER; null: 24 h. */
  holdTimeoutMs?: number | null;
  enabled: boolean;
  createdAt: string;
}

export interface McpDbToolRow {
  toolId: number;
  dialect: string;
  sqlTemplate: string;
  paramSchema: Json | null;
  safeMode: boolean;
  maxRows: number;
  allowedIdentifiers: Json | null;
}

export type HttpAuthKind = 'NONE' | 'API_KEY' | 'BEARER';
export type HttpMappingKind = 'RAW_JSON' | 'JSON_PATH' | 'FIELD_TEMPLATE' | 'TEXT';
export interface McpHttpToolRow {
  toolId: number;
  httpMethod: string;
  urlTemplate: string;
  headers: Json | null;
  queryParams: Json | null;
  bodyTemplate: string | null;
  /** JSON Schema of the call's arguments (issue #21); required unless body_template says what is sent. */
  inputSchema: Json | null;
  authKind: string;
  authHeaderName: string | null;
  authSecretEnv: string | null;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  backoffMultiplier: number;
  retryStatusCodes: Json;
  retryOnIoError: boolean;
  circuitEnabled: boolean;
  circuitFailureThreshold: number;
  circuitOpenMs: number;
  responseMappingKind: string;
  responseMapping: Json | null;
}

export interface McpPlannerRow {
  plannerId: number;
  intentCode: string;
  stateCode: string;
  systemPrompt: string;
  userPrompt: string;
  enabled: boolean;
  createdAt: string;
}

/** A progress message (ce_verbose): which step event it describes and the text shown for it. */
export interface VerboseRow {
  verboseId: number;
  intentCode: string;
  stateCode: string;
  /** EXACT (or ANY as step_value), REGEX (find on the step name) or JSON_PATH (on the event metadata). */
  stepMatch: string;
  stepValue: string;
  determinant: string;
  ruleId: number | null;
  toolCode: string | null;
  message: string | null;
  errorMessage: string | null;
  priority: number;
  enabled: boolean;
  createdAt: string;
}

export type SqlGuardrailRuleType = 'ALLOW_FUNCTION' | 'BLOCK_FUNCTION' | 'BLOCK_KEYWORD';
export interface SqlGuardrailRow {
  guardrailId: number;
  ruleType: string;
  matchValue: string;
  description: string | null;
  enabled: boolean;
}

export interface SemanticConceptRow {
  conceptId: number;
  conceptKey: string;
  conceptKind: string;
  description: string | null;
  tags: Json | null;
  enabled: boolean;
}

export interface SemanticSynonymRow {
  synonymId: number;
  synonymText: string;
  conceptKey: string;
  domainKey: string | null;
  confidenceScore: number | null;
  enabled: boolean;
}

export interface SemanticEntityRow {
  entityId: number;
  entityKey: string;
  primaryTable: string;
  relatedTables: Json | null;
  synonyms: Json | null;
  fieldsJson: Json | null;
  description: string | null;
  enabled: boolean;
}

export interface SemanticQueryClassRow {
  queryClassId: number;
  queryClassKey: string;
  baseTableName: string;
  description: string | null;
  astSkeletonJson: Json | null;
  allowedFilterFields: Json | null;
  defaultSelectFields: Json | null;
  defaultSortFields: Json | null;
  enabled: boolean;
}

export interface SemanticMappingRow {
  mappingId: number;
  conceptKey: string;
  entityKey: string;
  fieldKey: string;
  mappedTable: string;
  mappedColumn: string;
  operatorType: string;
  valueMapJson: Json | null;
  queryClassKey: string | null;
  priority: number;
  enabled: boolean;
}

export interface SemanticJoinPathRow {
  joinPathId: number;
  leftEntityKey: string;
  rightEntityKey: string;
  joinExpression: string;
  priority: number;
  enabled: boolean;
}

/** All config rows, every row including disabled ones (validation and audits need to see them). */
export interface ConfigRows {
  configs: ConfigRow[];
  intents: IntentRow[];
  classifiers: ClassifierRow[];
  outputSchemas: OutputSchemaRow[];
  promptTemplates: PromptTemplateRow[];
  responses: ResponseRow[];
  rules: RuleRow[];
  policies: PolicyRow[];
  pendingActions: PendingActionRow[];
  mcpTools: McpToolRow[];
  mcpDbTools: McpDbToolRow[];
  mcpHttpTools: McpHttpToolRow[];
  mcpPlanners: McpPlannerRow[];
  verboses: VerboseRow[];
  sqlGuardrails: SqlGuardrailRow[];
  semanticConcepts: SemanticConceptRow[];
  semanticSynonyms: SemanticSynonymRow[];
  semanticEntities: SemanticEntityRow[];
  semanticQueryClasses: SemanticQueryClassRow[];
  semanticMappings: SemanticMappingRow[];
  semanticJoinPaths: SemanticJoinPathRow[];
}

/**
 * An immutable, validated view of the config. `version` is a content hash of `rows`: it changes
 * when any row changes and never otherwise. A turn pins one version for all of its steps.
 */
export interface ConfigSnapshot {
  readonly version: string;
  readonly rows: Readonly<ConfigRows>;
}

/** One problem found by validation, printed as `table[id]: reason`. */
export interface ConfigViolation {
  table: string;
  id: string;
  reason: string;
}

export function formatViolation(v: ConfigViolation): string {
  return `${v.table}[${v.id}]: ${v.reason}`;
}
