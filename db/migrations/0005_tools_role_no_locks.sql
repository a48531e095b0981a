-- SQL tools run as convengine_tools_ro (D20). Advisory locks taken by a session outlive its
-- transaction (a tool's lock once blocked `convengine migrate` forever), sleeping holds a
-- connection, and notifications reach other sessions: none of these is for tool SQL. EXECUTE on
-- them is granted to PUBLIC by default, and privileges cannot be taken from one member of PUBLIC,
-- so they are revoked from PUBLIC and granted back to the role running the migrations (the
-- engine). Only the functions' owner (a superuser) can do this; otherwise the migration only
-- notes it, and the guardrail and the per-query session reset still stop such calls.

DO $$
DECLARE
  fn text;
  engine text := quote_ident(current_user);
BEGIN
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    RAISE NOTICE 'not a superuser: advisory-lock functions stay executable by PUBLIC';
    RETURN;
  END IF;
  FOREACH fn IN ARRAY ARRAY[
    'pg_advisory_lock(bigint)', 'pg_advisory_lock(integer, integer)',
    'pg_advisory_lock_shared(bigint)', 'pg_advisory_lock_shared(integer, integer)',
    'pg_try_advisory_lock(bigint)', 'pg_try_advisory_lock(integer, integer)',
    'pg_try_advisory_lock_shared(bigint)', 'pg_try_advisory_lock_shared(integer, integer)',
    'pg_advisory_xact_lock(bigint)', 'pg_advisory_xact_lock(integer, integer)',
    'pg_advisory_xact_lock_shared(bigint)', 'pg_advisory_xact_lock_shared(integer, integer)',
    'pg_try_advisory_xact_lock(bigint)', 'pg_try_advisory_xact_lock(integer, integer)',
    'pg_try_advisory_xact_lock_shared(bigint)', 'pg_try_advisory_xact_lock_shared(integer, integer)',
    'pg_sleep(double precision)', 'pg_sleep_for(interval)', 'pg_sleep_until(timestamp with time zone)',
    'pg_notify(text, text)'
  ] LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION pg_catalog.%s FROM PUBLIC', fn);
    EXECUTE format('GRANT EXECUTE ON FUNCTION pg_catalog.%s TO %s', fn, engine);
  END LOOP;
END;
$$;

-- Tool SQL reads the business schema only; nothing in public is for it.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM convengine_tools_ro;
