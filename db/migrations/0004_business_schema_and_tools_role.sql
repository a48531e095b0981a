-- Business data queried by SQL tools lives in its own schema. The tools role can read that schema
-- and nothing else: not the ce_* tables (conversations hold user text), and never write.

CREATE SCHEMA IF NOT EXISTS business;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'convengine_tools_ro') THEN
    CREATE ROLE convengine_tools_ro LOGIN NOINHERIT;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  -- Another database in the same cluster created the (cluster-wide) role concurrently.
  NULL;
END;
$$;

REVOKE ALL ON SCHEMA public FROM convengine_tools_ro;
GRANT USAGE ON SCHEMA business TO convengine_tools_ro;
GRANT SELECT ON ALL TABLES IN SCHEMA business TO convengine_tools_ro;
ALTER DEFAULT PRIVILEGES IN SCHEMA business GRANT SELECT ON TABLES TO convengine_tools_ro;
