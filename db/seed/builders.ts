import type {
  ClassifierRow,
  ConfigRow,
  IntentRow,
  OutputSchemaRow,
  PolicyRow,
  PromptTemplateRow,
  ResponseRow,
  RuleRow,
  VerboseRow,
} from '../../core/config/types';
import type { McpDbToolRow, McpHttpToolRow, McpPlannerRow, McpToolRow } from '../../core/config/tool-rows';
import type { JsonObject } from '../../core/json';
import { normalizePhase } from '../../core/rules/phase';

/**
 * Builders for complete config rows with the DDL defaults filled in. Seed packs are written with
 * them, so a pack is plain data that can be inserted (db/seed/seed.ts) or used in memory as
 * ConfigRows (tests, demo). created_at is a fixed instant so the same pack produces the same
 * config version in every database.
 */
export const SEED_CREATED_AT = '2026-01-01T00:00:00.000Z';

type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export function intent(row: Optional<IntentRow, 'priority' | 'enabled' | 'displayName' | 'llmHint'>): IntentRow {
  return { priority: 100, enabled: true, displayName: null, llmHint: null, ...row };
}

export function classifier(row: Optional<ClassifierRow, 'priority' | 'enabled' | 'description'>): ClassifierRow {
  return { priority: 100, enabled: true, description: null, ...row };
}

export function outputSchema(
  row: Optional<OutputSchemaRow, 'schemaType' | 'description' | 'priority' | 'enabled'>
): OutputSchemaRow {
  return { schemaType: 'SCHEMA_JSON', description: null, priority: 100, enabled: true, ...row };
}

export function promptTemplate(
  row: Optional<
    PromptTemplateRow,
    | 'systemPrompt'
    | 'userPrompt'
    | 'temperature'
    | 'interactionMode'
    | 'interactionContract'
    | 'description'
    | 'enabled'
    | 'createdAt'
  >
): PromptTemplateRow {
  return {
    systemPrompt: null,
    userPrompt: null,
    temperature: null,
    interactionMode: null,
    interactionContract: null,
    description: null,
    enabled: true,
    createdAt: SEED_CREATED_AT,
    ...row,
  };
}

export function response(
  row: Optional<
    ResponseRow,
    'outputFormat' | 'exactText' | 'derivationHint' | 'jsonSchema' | 'priority' | 'description' | 'enabled'
  >
): ResponseRow {
  return {
    outputFormat: 'TEXT',
    exactText: null,
    derivationHint: null,
    jsonSchema: null,
    priority: 100,
    description: null,
    enabled: true,
    ...row,
  };
}

/** `phase` is stored as given; the snapshot carries it normalized (D3) with the raw value in dbPhase. */
export function rule(
  row: Optional<Omit<RuleRow, 'dbPhase'>, 'phase' | 'actionValue' | 'priority' | 'description' | 'enabled'>
): RuleRow {
  const stored = row.phase ?? 'PRE_RESPONSE_RESOLUTION';
  return {
    actionValue: null,
    priority: 100,
    description: null,
    enabled: true,
    ...row,
    phase: normalizePhase(stored) ?? stored,
    dbPhase: stored,
  };
}

export function policy(row: Optional<PolicyRow, 'priority' | 'description' | 'enabled'>): PolicyRow {
  return { priority: 10, description: null, enabled: true, ...row };
}

export function mcpTool(
  row: Optional<
    McpToolRow,
    | 'description'
    | 'sideEffect'
    | 'requiresApproval'
    | 'approvalTimeoutMs'
    | 'maxAttempts'
    | 'initialIntervalMs'
    | 'backoffCoefficient'
    | 'maxIntervalMs'
    | 'startToCloseTimeoutMs'
    | 'enabled'
    | 'createdAt'
  >
): McpToolRow {
  return {
    description: null,
    sideEffect: 'READ_ONLY',
    requiresApproval: false,
    approvalTimeoutMs: null,
    maxAttempts: null,
    initialIntervalMs: null,
    backoffCoefficient: null,
    maxIntervalMs: null,
    startToCloseTimeoutMs: null,
    enabled: true,
    createdAt: SEED_CREATED_AT,
    ...row,
  };
}

export function dbTool(
  row: Optional<McpDbToolRow, 'dialect' | 'paramSchema' | 'safeMode' | 'maxRows' | 'allowedIdentifiers'>
): McpDbToolRow {
  return { dialect: 'POSTGRES', paramSchema: null, safeMode: true, maxRows: 200, allowedIdentifiers: null, ...row };
}

type HttpDefaults = Omit<McpHttpToolRow, 'toolId' | 'urlTemplate'>;
const HTTP_DEFAULTS: HttpDefaults = {
  httpMethod: 'GET',
  headers: null,
  queryParams: null,
  bodyTemplate: null,
  inputSchema: null,
  authKind: 'NONE',
  authHeaderName: null,
  authSecretEnv: null,
  connectTimeoutMs: 2000,
  readTimeoutMs: 5000,
  maxAttempts: 2,
  initialBackoffMs: 200,
  maxBackoffMs: 2000,
  backoffMultiplier: 2,
  retryStatusCodes: [429, 502, 503, 504],
  retryOnIoError: true,
  circuitEnabled: true,
  circuitFailureThreshold: 5,
  circuitOpenMs: 30000,
  responseMappingKind: 'RAW_JSON',
  responseMapping: null,
};

export function httpTool(row: Pick<McpHttpToolRow, 'toolId' | 'urlTemplate'> & Partial<HttpDefaults>): McpHttpToolRow {
  return { ...HTTP_DEFAULTS, ...row };
}

export function planner(row: Optional<McpPlannerRow, 'enabled' | 'createdAt'>): McpPlannerRow {
  return { enabled: true, createdAt: SEED_CREATED_AT, ...row };
}

/** A progress message; EXACT step match, priority 100, no rule or tool filter unless given. */
export function verbose(
  row: Optional<
    VerboseRow,
    'stepMatch' | 'ruleId' | 'toolCode' | 'message' | 'errorMessage' | 'priority' | 'enabled' | 'createdAt'
  >
): VerboseRow {
  return {
    stepMatch: 'EXACT',
    ruleId: null,
    toolCode: null,
    message: null,
    errorMessage: null,
    priority: 100,
    enabled: true,
    createdAt: SEED_CREATED_AT,
    ...row,
  };
}

export function configSetting(row: Optional<ConfigRow, 'enabled'>): ConfigRow {
  return { enabled: true, ...row };
}

/** A JSON Schema object for extraction schemas and DB tool params. */
export function objectSchema(properties: JsonObject, required: string[] = []): JsonObject {
  return { type: 'object', properties, required };
}
