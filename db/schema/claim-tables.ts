import { customType, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });
const ts = (name: string) => timestamp(name, { withTimezone: true }).notNull().defaultNow();

/** Large Temporal payloads kept out of event history (db/claims/codec.ts), addressed by content hash. */
export const cePayloadClaim = pgTable('ce_payload_claim', {
  /** sha256 (hex) of `body`. */
  claimHash: text('claim_hash').primaryKey(),
  /** The original payload, protobuf-encoded (temporal.api.common.v1.Payload). */
  body: bytea('body').notNull(),
  sizeBytes: integer('size_bytes').notNull(),
  createdAt: ts('created_at'),
  /** Last time a history was written with a reference to this claim; prune goes by it. */
  lastReferencedAt: ts('last_referenced_at'),
});

/** The conversations whose turns stored each claim: a prune or erase of the conversation deletes its claims. */
export const cePayloadClaimConversation = pgTable(
  'ce_payload_claim_conversation',
  {
    conversationId: uuid('conversation_id').notNull(),
    claimHash: text('claim_hash')
      .notNull()
      .references(() => cePayloadClaim.claimHash, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.claimHash] })]
);

/** Conversation ids pruned or erased, as the sha256 of the id: they take no turn again (410 CONVERSATION_RETIRED). */
export const ceRetiredConversation = pgTable('ce_retired_conversation', {
  conversationDigest: text('conversation_digest').primaryKey(),
  retiredAt: ts('retired_at'),
  reason: text('reason').notNull(),
  /** An erase's accountability record: who, what was deleted, and what Temporal still held (null: nothing). */
  erasedBy: text('erased_by'),
  erasedCounts: jsonb('erased_counts'),
  temporalRemaining: text('temporal_remaining'),
});
