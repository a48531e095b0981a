-- Which Temporal run of a turn's workflow wrote a row. A failed turn retried by an operator runs
-- again under the same workflow id, so the same idempotency keys: the retry rewrites the rows it
-- writes again, but rows only the failed run wrote (its tool failures, its model answers) stay.
-- The what-if replay reads a turn's recording from the run that wrote its USER_INPUT row last, and
-- so no longer mixes a failed run's tool results and model answers into the retry it replays.
-- Null for rows written outside Temporal (the in-process runner) and before this migration.
ALTER TABLE ce_audit ADD COLUMN run_id text;
ALTER TABLE ce_llm_call_log ADD COLUMN run_id text;
