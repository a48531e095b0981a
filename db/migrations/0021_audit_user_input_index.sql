-- migrate: no-transaction
--
-- The console's conversation search (GET /api/v1/console/conversations?q=) also matches what the user typed in a
-- turn that failed: such a turn commits nothing (no ce_conversation_history row, no last_user_text), and its
-- USER_INPUT audit row is the only place its message is. This partial index holds one entry per turn run, so the
-- search reads a conversation's USER_INPUT rows on their own instead of every audit row it has (about 70 per turn).
-- Built CONCURRENTLY (db/migrate-outside-transaction.ts) so that turns keep writing audit rows while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS ce_audit_user_input_idx ON ce_audit (conversation_id) WHERE stage = 'USER_INPUT';
