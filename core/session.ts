import type { Json, JsonObject } from './json';

export type Payload = { type: 'TEXT'; value: string } | { type: 'JSON'; value: Json };

/** What ce_conversation.status holds: BLOCKED when a ce_policy row refused the last turn's message, else RUNNING. */
export const CONVERSATION_STATUSES = ['RUNNING', 'BLOCKED'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

export interface PendingClarification {
  question: string;
  reason: string;
}

export interface HistoryTurn {
  turnNumber: number;
  userInput: string;
  assistantOutput: Json | null;
}

/** Who sent the request; injected into tool calls (D16). Never put into search attributes. */
export interface RequestContext {
  userId?: string;
  tenantId?: string;
}

export interface ResolvedSchemaRef {
  schemaId: number;
  intentCode: string;
  stateCode: string;
}

/**
 * The working state of one turn. It is plain JSON because the turn workflow carries it from
 * activity to activity through event history: every step reads it and returns the next version.
 */
export interface Session {
  conversationId: string;
  /** 1-based number of the turn being run (committed turns + 1). */
  turnNumber: number;
  configVersion: string;
  conversationStatus: ConversationStatus;
  userText: string;
  intent: string;
  state: string;
  context: JsonObject;
  /** Request params merged over persisted ones; rules and prompts read and write these. */
  inputParams: JsonObject;
  /** The request's params exactly as received, for audits. */
  userInputParams: JsonObject;
  requestContext: RequestContext;
  standaloneQuery: string | null;
  resolvedUserInput: string;
  intentLocked: boolean;
  intentLockReason: string | null;
  pendingClarification: PendingClarification | null;
  resolvedSchema: ResolvedSchemaRef | null;
  schemaComplete: boolean;
  hasAnySchemaValue: boolean;
  missingRequiredFields: string[];
  missingFieldOptions: Record<string, string[]>;
  lastLlmOutput: string | null;
  lastLlmStage: string | null;
  payload: Payload | null;
  lastAssistantJson: Json | null;
  /** Recent committed turns, newest first, for prompts (conversation_history). */
  history: HistoryTurn[];
  stepInfos: Record<string, 'IN_PROGRESS' | 'SUCCESS' | 'ERROR'>;
}
