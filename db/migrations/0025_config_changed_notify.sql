-- Every write to a config table bumps ce_config_revision (0003); it now also notifies the channel ce_config_changed,
-- delivered when the writing transaction commits, so each process's config store (db/config/change-listener.ts)
-- checks the revision and reloads at once, not when its next turn asks. The payload is empty: PostgreSQL delivers one
-- notification per transaction however many statements notify the same channel with the same payload, and the
-- revision itself stays the one fact a store reads. A build older than this one ignores the notifications.
CREATE OR REPLACE FUNCTION ce_bump_config_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ce_config_revision SET revision = revision + 1, changed_at = now() WHERE id;
  PERFORM pg_notify('ce_config_changed', '');
  RETURN NULL;
END;
$$;
