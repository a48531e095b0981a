-- migrate: no-transaction
-- The console search now folds text to Unicode NFKC before lower-casing it (db/search-collation.ts foldedText), and
-- its trigram indexes (db/search-indexes.ts) are built on that fold: an index on the old one would never be used.
-- They are dropped here, and `migrate` builds them again on every row's text (ensureSearchIndexes, after the
-- migrations), CONCURRENTLY, where pg_trgm can be had. Until then the search works, reading the tables.
DROP INDEX CONCURRENTLY IF EXISTS ce_conversation_id_trgm_idx;
DROP INDEX CONCURRENTLY IF EXISTS ce_conversation_last_user_text_trgm_idx;
DROP INDEX CONCURRENTLY IF EXISTS ce_history_user_input_trgm_idx;
DROP INDEX CONCURRENTLY IF EXISTS ce_history_reply_trgm_idx;
DROP INDEX CONCURRENTLY IF EXISTS ce_audit_user_input_trgm_idx;
