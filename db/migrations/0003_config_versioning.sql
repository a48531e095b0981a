-- Cheap staleness check for the config snapshot: every write to a config table bumps one
-- counter, so a worker compares a single integer instead of re-reading every table. The
-- snapshot's own version is a content hash, so a no-op write bumps the counter but not the version.

CREATE TABLE ce_config_revision (
  id         boolean PRIMARY KEY DEFAULT true CHECK (id),
  revision   bigint NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO ce_config_revision (id, revision) VALUES (true, 1);

CREATE FUNCTION ce_bump_config_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ce_config_revision SET revision = revision + 1, changed_at = now() WHERE id;
  RETURN NULL;
END;
$$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY[
    'ce_config', 'ce_intent', 'ce_intent_classifier', 'ce_output_schema', 'ce_prompt_template',
    'ce_response', 'ce_rule', 'ce_policy', 'ce_pending_action', 'ce_mcp_tool', 'ce_mcp_db_tool',
    'ce_mcp_http_tool', 'ce_mcp_planner', 'ce_mcp_sql_guardrail', 'ce_semantic_concept',
    'ce_semantic_synonym', 'ce_semantic_entity', 'ce_semantic_query_class', 'ce_semantic_mapping',
    'ce_semantic_join_path'
  ] LOOP
    EXECUTE format(
      'CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION ce_bump_config_revision()',
      t || '_bump_revision', t);
  END LOOP;
END;
$$;

-- Every validated snapshot a turn has pinned, by content version, so any worker can run a turn on
-- the version it started with even after the tables have moved on.
CREATE TABLE ce_config_snapshot (
  version     text PRIMARY KEY,
  rows_json   jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
