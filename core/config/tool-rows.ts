import type { Json } from '../json';

/**
 * Typed rows of the MCP tool tables (ce_mcp_tool, ce_mcp_db_tool, ce_mcp_http_tool, ce_mcp_planner) and of the SQL
 * guardrail table, as held in a snapshot; the conventions are core/config/types.ts's.
 */
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

export type SqlGuardrailRuleType = 'ALLOW_FUNCTION' | 'BLOCK_FUNCTION' | 'BLOCK_KEYWORD';
export interface SqlGuardrailRow {
  guardrailId: number;
  ruleType: string;
  matchValue: string;
  description: string | null;
  enabled: boolean;
}
