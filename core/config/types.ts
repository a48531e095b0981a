import type { Json, JsonObject } from '../json';
import type { McpDbToolRow, McpHttpToolRow, McpPlannerRow, McpToolRow, SqlGuardrailRow } from './tool-rows';
import type {
  SemanticConceptRow,
  SemanticEntityRow,
  SemanticJoinPathRow,
  SemanticMappingRow,
  SemanticQueryClassRow,
  SemanticSynonymRow,
} from './semantic-rows';

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
