-- migrate: no-transaction
--
-- `convengine conversations prune` walks the conversations last updated before its cutoff in (updated_at,
-- conversation_id) order, a batch at a time, carrying its place from one batch to the next
-- (db/repositories/retention.ts). Without an index on that order every batch read and sorted every idle
-- conversation and checked each one's audit trail: 2.7 s a batch with 54,000 idle, 253 s for the run. Built
-- CONCURRENTLY (db/migrate-outside-transaction.ts) so that turns keep updating their conversations while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS ce_conversation_updated_idx ON ce_conversation (updated_at, conversation_id);
