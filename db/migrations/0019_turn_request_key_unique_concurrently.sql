-- migrate: no-transaction
--
-- An Idempotency-Key names one request across the whole API (docs/security.md), but the primary key
-- (conversation_id, idempotency_key) let the same key claim a turn in each conversation it was sent with:
-- a gateway that reused a key by mistake got a new turn where it should have got 422 IDEMPOTENCY_KEY_REUSED.
-- A key is now unique on its own, so the database itself refuses the second claim, even a concurrent one.
--
-- A database may already hold one key in several conversations. The newest claim keeps it; the older ones
-- are dropped. A late retry of such an older request is then refused with 422 (the key belongs to another
-- conversation), never answered with a second turn.
--
-- This replaces 0018, which did the same but built the index inside the migrator's transaction, blocking every
-- turn's claim for the whole build on a large table. Built CONCURRENTLY, outside a transaction (db/migrate-outside-
-- transaction.ts), claims go on meanwhile. A claim of a key already used in another conversation, made between the
-- DELETE and the end of the build, fails the build; running migrate again deletes it and builds the index anew.
-- On a database that applied 0018 both statements find nothing to do, and 0018 stays recorded (db/migrate.ts
-- SUPERSEDES records it on a database that never ran it, so an older build does not run it after this).
DELETE FROM ce_turn_request older
 USING ce_turn_request newer
 WHERE older.idempotency_key = newer.idempotency_key
   AND (older.created_at, older.conversation_id) < (newer.created_at, newer.conversation_id);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ce_turn_request_key_idx ON ce_turn_request (idempotency_key);
