import type { ErasureReport, ErasureRequest } from './turns/erase';
import type { AuditCursor, AuditCursorShare, AuditPageBounds } from '../core/audit';
import type { JsonObject } from '../core/json';
import type { Payload, RequestContext } from '../core/session';
import type { TurnResult } from '../core/turn/contracts';
import type { ConversationWhatifResult } from '../core/whatif/diff';
import type { ReplyTexts } from './reply-texts';
import type { ApprovalDecisionInput } from '../workflows/messages';
import type { ApprovalQueue } from './turns/approval-queue';
import type { HeldToolOperations } from './turns/held-tools';

/** What the routes need from the rest of the system; api/wiring.ts provides the real ones. */
export interface TurnRequest {
  conversationId: string;
  message: string;
  inputParams: JsonObject;
  reset: boolean;
  idempotencyKey: string | null;
  requestContext: RequestContext;
}

export interface PendingApprovalView {
  intent: string;
  state: string;
  toolCode: string;
  args: JsonObject;
  callIndex: number;
  expiresAt: string;
}

/** What the caller of a held turn (#22) is told: no error text, which is for operators. */
export interface HeldToolView {
  intent: string;
  state: string;
  toolCode: string;
  callIndex: number;
  expiresAt: string;
}

export interface TurnRef {
  conversationId: string;
  turnNumber: number;
  workflowId: string;
  runId: string;
}

export type TurnReply =
  | { kind: 'COMPLETED'; ref: TurnRef; result: TurnResult }
  | { kind: 'AWAITING_APPROVAL'; ref: TurnRef; pending: PendingApprovalView }
  | { kind: 'HELD'; ref: TurnRef; held: HeldToolView }
  | { kind: 'FAILED'; ref: TurnRef; failureType: string; message: string; retryable: boolean }
  | { kind: 'RUNNING'; ref: TurnRef; reason: StillRunningReason; intent: string; state: string };

/**
 * Why a caller is answered before its turn ended: the turn outlived TURN_REPLY_TIMEOUT_MS (a tool in a
 * long retry backoff, a slow model), the API is stopping, or the Temporal server stopped answering while the
 * caller waited. The turn goes on; `intent` and `state` are the conversation's as the previous turn left them.
 */
export type StillRunningReason = 'REPLY_TIMEOUT' | 'API_STOPPING' | 'TEMPORAL_UNREACHABLE';

export interface TurnGateway {
  /**
   * The conversation a first message with this Idempotency-Key and no conversationId opens in this deployment: the
   * same for every retry of the request, and another deployment's never (api/turns/turn-id.ts).
   */
  keyedConversation(idempotencyKey: string): Promise<string>;
  /** Starts the next turn, or attaches to the one this idempotency key already started. */
  sendMessage(request: TurnRequest): Promise<TurnReply>;
  /** Sends the decision to the turn's decideApproval update; its validator refuses a stale or malformed one. */
  decideApproval(conversationId: string, turnNumber: number, decision: ApprovalDecisionInput): Promise<TurnReply>;
  /** Re-runs a failed turn with its original input (same turn id, so write tools dedupe). */
  retryTurn(workflowId: string): Promise<TurnReply>;
}

export interface HistoryEntryView {
  turnNumber: number;
  userInput: string | null;
  assistantOutput: unknown;
  createdAt: string;
}

/**
 * The last turn that ended, as the trail records it: COMPLETED (turn `turnCount` committed) or FAILED (its
 * ENGINE_*_FAILURE row is the conversation's last audit row). A turn still running is not one of them.
 */
export type LastTurnView =
  | { turnNumber: number; status: 'COMPLETED' }
  | { turnNumber: number; status: 'FAILED'; failureType: string; retryable: boolean };

/**
 * D16: the call a turn past the committed ones waits on, as its MCP_TOOL_APPROVAL_REQUESTED row says, until the
 * decision is recorded or it expires; `decideWith` as in the 202.
 */
export interface PendingApprovalInConversation {
  turnNumber: number;
  toolCode: string;
  args: JsonObject;
  callIndex: number;
  expiresAt: string;
  decideWith: { method: string; url: string; body: JsonObject };
}

export interface ConversationView {
  conversationId: string;
  status: string;
  intent: string;
  state: string;
  context: JsonObject;
  inputParams: JsonObject;
  lastAssistant: Payload | unknown;
  turnCount: number;
  configVersion: string | null;
  createdAt: string;
  updatedAt: string;
  history: HistoryEntryView[];
  /** Null before any turn ended. */
  lastTurn: LastTurnView | null;
  /** Null unless a turn waits for an approval now. */
  pendingApproval: PendingApprovalInConversation | null;
}

export interface AuditRowView {
  auditId: number;
  conversationId: string;
  turnNumber: number | null;
  /**
   * The Temporal run of the turn that wrote the row; null for a row of no run (an operator's action, the in-process
   * runner, rows from before migration 0016). A turn number has several runs when an operator retried the turn or a
   * new message took the number of a turn that failed before committing: each run's rows are its own.
   */
  runId: string | null;
  stage: string;
  payload: JsonObject;
  createdAt: string;
}

export interface ConversationQueries {
  conversation(conversationId: string): Promise<ConversationView | null>;
  /** Whether the conversation was pruned or erased (ce_retired_conversation): its reads answer 410, not 404. */
  retired(conversationId: string): Promise<boolean>;
  /**
   * The rows after each cursor in one read, oldest first per conversation: per cursor at most `share.rows` (and a
   * page) and `share.maxBytes` of payload, measured before they are loaded (the first row whatever its size).
   */
  auditsAfter(cursors: readonly AuditCursor[], share: AuditCursorShare): Promise<AuditRowView[]>;
  /**
   * Audit rows after `afterAuditId`, oldest first, measured before they are loaded: at most `limit` (and a page),
   * and payloads of at most `maxBytes` as JSON text (the first row whatever its size when `takeFirst`).
   */
  auditsWithin(conversationId: string, bounds: AuditPageBounds): Promise<AuditBytePageView>;
}

export interface AuditBytePageView {
  rows: AuditRowView[];
  /** The payload bytes of `rows`, as JSON text. */
  bytes: number;
  /** The next row would have taken the rows past `maxBytes`: more follow. */
  full: boolean;
}

export interface ConfigAdmin {
  /** Validates and swaps atomically; throws EngineError CONFIG_INVALID (details.violations) otherwise. */
  refresh(): Promise<{ version: string; changed: boolean }>;
}

/** What-if replay of one recorded conversation against a stored config version (activities/whatif). */
export interface WhatifQueries {
  /**
   * Throws WhatifInputError for an unknown conversation or version, an invalid draft, or a conversation
   * with more recorded turns than `limits.maxTurns`.
   */
  conversation(
    conversationId: string,
    configVersion: string,
    limits: { maxTurns: number }
  ): Promise<ConversationWhatifResult>;
}

export interface ReadinessProbe {
  /** Checks (each `ok` to be ready) and warnings that leave it ready (observability/probe-server.ts). */
  check(): Promise<{ checks: Record<string, string>; warnings?: Record<string, string> }>;
  /**
   * Why no turn can run now (an unmigrated database, a namespace without the turn search attributes), or
   * null: a message is then refused with 503 and this code instead of failing inside the turn.
   */
  turnBlocker?(): Promise<{ code: string; message: string } | null>;
  /**
   * DEPLOYMENT_MISMATCH while the database is bound to another deployment, or null: every /api/ route is then
   * refused with 503 and this code (api/app.ts), reads as well as turns.
   */
  deploymentBlocker?(): Promise<{ code: string; message: string } | null>;
}

export interface ApiPorts {
  turns: TurnGateway;
  /** End-user texts for 202 and failed turns; the engine defaults when absent. */
  replyTexts?: ReplyTexts;
  conversations: ConversationQueries;
  config: ConfigAdmin;
  readiness: ReadinessProbe;
  /** GET /api/v1/whatif exists only when given. */
  whatif?: WhatifQueries;
  /** #22: held tool calls for operators; without it the held-tool routes are not mounted. */
  heldTools?: HeldToolOperations;
  /** D16: the turns waiting for a tool approval; without it the approval queue's route is not mounted. */
  approvals?: ApprovalQueue;
  /** Erases one conversation (api/turns/erase.ts); without it DELETE /api/v1/admin/conversations/{id} is not mounted. */
  eraseConversation?: (request: ErasureRequest) => Promise<ErasureReport>;
}
