-- No conversation row is created for a retired id (pruned or erased, 0023). The API refuses a first message to one,
-- but a message it accepted just before an erase committed ran its turn afterwards, and the turn's first step
-- recreated the conversation and then its text. The check runs after the row is inserted, so an insert that waited on
-- a prune's or erase's delete of the same id checks once that has committed, and under the id's lock
-- (ce_conversation_lock), which an erase takes before it reads anything: a creation that waited on the lock reads the
-- retirement in a snapshot of its own (PL/pgSQL takes one per query), and an erase that waited on a creation sees the
-- new row, and the turn that made it. Refused with SQLSTATE CE410 (db/repositories/retired.ts).
CREATE OR REPLACE FUNCTION ce_conversation_lock(conversation uuid) RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(1131, hashtext(conversation::text))
$$;

CREATE OR REPLACE FUNCTION ce_refuse_retired_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ce_conversation_lock(NEW.conversation_id);
  IF EXISTS (SELECT 1 FROM ce_retired_conversation
              WHERE conversation_digest = encode(sha256(convert_to(NEW.conversation_id::text, 'UTF8')), 'hex')) THEN
    RAISE EXCEPTION 'the conversation was pruned or erased: it is not created again' USING ERRCODE = 'CE410';
  END IF;
  RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS ce_conversation_not_retired ON ce_conversation;
CREATE TRIGGER ce_conversation_not_retired AFTER INSERT ON ce_conversation
  FOR EACH ROW EXECUTE FUNCTION ce_refuse_retired_conversation();
