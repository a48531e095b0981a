-- migrate: no-transaction
--
-- The turn console reads one turn's audit rows (GET /api/v1/console/turns/{workflowId}) and the USER_INPUT rows of
-- a page of turns (GET /api/v1/console/conversations/{id}/turns). With only (conversation_id, audit_id) to go on,
-- that read went through every row of the conversation: 13,600 rows for a 200-turn conversation, per turn. This
-- index finds a turn's rows, in write order, on their own. Built CONCURRENTLY (db/migrate-outside-transaction.ts) so
-- that turns keep writing audit rows while it builds on a large table.
CREATE INDEX CONCURRENTLY IF NOT EXISTS ce_audit_turn_idx ON ce_audit (conversation_id, turn_number, audit_id);
