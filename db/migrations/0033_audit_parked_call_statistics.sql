-- The planner keeps no statistics for a partial index's expression, so it took a third of
-- ce_audit_parked_call_idx's rows (every call ever parked) to be still waiting, and a cost that had PostgreSQL
-- compile the parked-turns query (db/repositories/parked-turns.ts) with JIT: 0.55 s of a 0.56 s run. Statistics on
-- the expression, which ANALYZE (autovacuum's too) gathers, tell it that only a few waits have not ended.
-- Statistics on an expression came in PostgreSQL 14: an older server keeps the index and goes without them (the
-- query stays right, and may be compiled), rather than stopping every later migration.
DO $$
BEGIN
  IF current_setting('server_version_num')::int >= 140000 THEN
    EXECUTE $sql$CREATE STATISTICS IF NOT EXISTS ce_audit_parked_call_stats
      ON ((payload_json->>'expires_at') COLLATE "C") FROM ce_audit$sql$;
  END IF;
END
$$;
