-- migrate: no-transaction
-- The console search now folds text with 0030's ce_search_fold (NFKC, full case folding: a composed é and e with a
-- combining accent are one, ß is ss, İ is i, a final ς is σ), and its trigram indexes (db/search-indexes.ts) are built
-- on that fold: one on the old lower()-only fold would never be used. They are dropped here, and `migrate` builds
-- them again on every row's text (ensureSearchIndexes, after the migrations; it skips an index whose name exists),
-- CONCURRENTLY, where pg_trgm can be had. Until then the search works, reading the tables.
DROP INDEX CONCURRENTLY IF EXISTS ce_conversation_id_trgm_idx;
DROP INDEX CONCURRENTLY IF EXISTS ce_conversation_last_user_text_trgm_idx;
DROP INDEX CONCURRENTLY IF EXISTS ce_history_user_input_trgm_idx;
DROP INDEX CONCURRENTLY IF EXISTS ce_history_reply_trgm_idx;
DROP INDEX CONCURRENTLY IF EXISTS ce_audit_user_input_trgm_idx;
