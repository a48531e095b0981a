import {
  bigint,
  bigserial,
  boolean,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

const ts = (name: string) => timestamp(name, { withTimezone: true }).notNull().defaultNow();

export const ceConversation = pgTable('ce_conversation', {
  conversationId: uuid('conversation_id').primaryKey(),
  status: text('status').notNull().default('RUNNING'),
  intentCode: text('intent_code').notNull().default('UNKNOWN'),
  stateCode: text('state_code').notNull().default('UNKNOWN'),
  contextJson: jsonb('context_json').notNull().default({}),
  lastUserText: text('last_user_text'),
  lastAssistantJson: jsonb('last_assistant_json'),
  inputParamsJson: jsonb('input_params_json').notNull().default({}),
  turnCount: integer('turn_count').notNull().default(0),
  configVersion: text('config_version'),
  createdAt: ts('created_at'),
  updatedAt: ts('updated_at'),
});

export const ceConversationHistory = pgTable(
  'ce_conversation_history',
  {
    historyId: bigserial('history_id', { mode: 'number' }).primaryKey(),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => ceConversation.conversationId, { onDelete: 'cascade' }),
    turnNumber: integer('turn_number').notNull(),
    userInput: text('user_input'),
    assistantOutput: jsonb('assistant_output'),
    createdAt: ts('created_at'),
    modifiedAt: ts('modified_at'),
  },
  (t) => [unique('ce_conversation_history_turn_uq').on(t.conversationId, t.turnNumber)]
);

export const ceAudit = pgTable('ce_audit', {
  auditId: bigserial('audit_id', { mode: 'number' }).primaryKey(),
  conversationId: uuid('conversation_id')
    .notNull()
    .references(() => ceConversation.conversationId, { onDelete: 'cascade' }),
  turnNumber: integer('turn_number'),
  stage: text('stage').notNull(),
  payloadJson: jsonb('payload_json').notNull(),
  idempotencyKey: text('idempotency_key').notNull().unique('ce_audit_idempotency_uq'),
  /** `<turn id>@<run id>/<call key>/`: what a step retried within its run replaces (migration 0014). */
  keyPrefix: text('key_prefix').generatedAlwaysAs(sql`substring(idempotency_key FROM '^(.*/)')`),
  workflowId: text('workflow_id'),
  /** The Temporal run that wrote the row last (migration 0016); null in process. */
  runId: text('run_id'),
  createdAt: ts('created_at'),
});

export const ceLlmCallLog = pgTable('ce_llm_call_log', {
  llmCallId: bigserial('llm_call_id', { mode: 'number' }).primaryKey(),
  conversationId: uuid('conversation_id'),
  turnNumber: integer('turn_number'),
  callKind: text('call_kind').notNull(),
  intentCode: text('intent_code'),
  stateCode: text('state_code'),
  provider: text('provider').notNull(),
  model: text('model'),
  temperature: numeric('temperature', { precision: 3, scale: 2 }),
  promptText: text('prompt_text'),
  userContext: text('user_context'),
  responseText: text('response_text'),
  success: boolean('success').notNull(),
  errorMessage: text('error_message'),
  latencyMs: integer('latency_ms'),
  /** The Temporal run of the activity that made the call (migration 0016); null in process. */
  runId: text('run_id'),
  createdAt: ts('created_at'),
});

export const ceTurnRequest = pgTable(
  'ce_turn_request',
  {
    conversationId: uuid('conversation_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    turnNumber: integer('turn_number').notNull(),
    workflowId: text('workflow_id').notNull(),
    /** sha256 of the request body the key was first used with (null for rows older than 0006). */
    requestHash: text('request_hash'),
    createdAt: ts('created_at'),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.idempotencyKey] }),
    // A key names one request across the API, whatever the conversation (migration 0019).
    uniqueIndex('ce_turn_request_key_idx').on(t.idempotencyKey),
  ]
);

export const ceConfigRevision = pgTable('ce_config_revision', {
  id: boolean('id').primaryKey().default(true),
  revision: bigint('revision', { mode: 'number' }).notNull(),
  changedAt: ts('changed_at'),
});

/** The Temporal deployment this database belongs to: one row at most (migration 0026, db/deployment.ts). */
export const ceDeployment = pgTable('ce_deployment', {
  id: boolean('id').primaryKey().default(true),
  temporalNamespace: text('temporal_namespace').notNull(),
  taskQueue: text('task_queue').notNull(),
  boundAt: ts('bound_at'),
});

export const ceConfigSnapshot = pgTable('ce_config_snapshot', {
  version: text('version').primaryKey(),
  rowsJson: jsonb('rows_json').notNull(),
  createdAt: ts('created_at'),
  /** The config revision at which a store last began serving this version (migration 0017 says why). */
  lastServedRevision: bigint('last_served_revision', { mode: 'number' }).notNull().default(0),
  lastServedAt: ts('last_served_at'),
});
