-- Which stored snapshot was last in service, for the config store's fallback when it starts on tables that
-- do not validate. created_at cannot say it: a snapshot row is written once, on the version's first serving,
-- so re-applying an older config after a newer one never made it "newer".
--
-- last_served_revision is the ce_config_revision at which a store began serving the version (the revision
-- of the rows it read, or, for a store that starts on a stored snapshot, of the rows it refused). Ordering by
-- the revision rather than by a clock means a store that read an older revision but wrote later (a slow
-- worker) cannot outrank one that served a newer one. last_served_at says when, for an operator.
--
-- Rows stored before this migration get revision 0 and their created_at, so among themselves they keep the
-- order they had; the first store to serve a version after it records a real revision.
ALTER TABLE ce_config_snapshot
  ADD COLUMN last_served_revision bigint NOT NULL DEFAULT 0,
  ADD COLUMN last_served_at timestamptz NOT NULL DEFAULT now();
UPDATE ce_config_snapshot SET last_served_at = created_at;
