#!/bin/sh
# Runs once, on the first start of the PostgreSQL volume: the application database, the
# read-write application role, and the login SQL tools connect with (D20, docs/security.md).
# The tools role belongs to no role, reads only what migrations grant it (schema business), and
# carries server-side limits of its own. `convengine migrate` (run as the application role)
# checks that it stays so.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<SQL
CREATE ROLE convengine_app LOGIN PASSWORD '${APP_DB_PASSWORD}';
CREATE ROLE convengine_tools_ro LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  CONNECTION LIMIT 64 PASSWORD '${TOOLS_DB_PASSWORD}';
ALTER ROLE convengine_tools_ro SET search_path = business;
ALTER ROLE convengine_tools_ro SET default_transaction_read_only = on;
ALTER ROLE convengine_tools_ro SET statement_timeout = '60s';
ALTER ROLE convengine_tools_ro SET lock_timeout = '5s';
ALTER ROLE convengine_tools_ro SET idle_in_transaction_session_timeout = '60s';
ALTER ROLE convengine_tools_ro SET temp_file_limit = '256MB';
CREATE DATABASE convengine OWNER convengine_app;
SQL
# Advisory locks outlive a transaction; sleeping and notifying are not for tool SQL either. Only
# the functions' owner may revoke them from PUBLIC (migration 0005 does it when run as superuser).
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname convengine <<SQL
DO \$\$
DECLARE fn text;
BEGIN
  FOR fn IN SELECT p.oid::regprocedure::text FROM pg_proc p
    WHERE p.pronamespace = 'pg_catalog'::regnamespace
      AND (p.proname LIKE 'pg%advisory%lock%' OR p.proname IN ('pg_sleep', 'pg_sleep_for', 'pg_sleep_until', 'pg_notify'))
  LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO convengine_app', fn);
  END LOOP;
END
\$\$;
SQL
