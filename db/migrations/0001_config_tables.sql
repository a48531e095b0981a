-- Control-plane (config) tables. Config authors edit these rows; the engine reads them as a
-- versioned snapshot (db/config), validated before use.

CREATE TABLE ce_config (
  config_id     integer PRIMARY KEY,
  config_type   text NOT NULL,
  config_key    text NOT NULL,
  config_value  text,
  enabled       boolean NOT NULL DEFAULT true,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ce_config_type_key_uq UNIQUE (config_type, config_key)
);

CREATE TABLE ce_intent (
  intent_code   text PRIMARY KEY,
  description   text NOT NULL,
  priority      integer NOT NULL DEFAULT 100,
  enabled       boolean NOT NULL DEFAULT true,
  display_name  text,
  llm_hint      text,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ce_intent_classifier (
  classifier_id bigint PRIMARY KEY,
  intent_code   text NOT NULL,
  state_code    text NOT NULL DEFAULT 'UNKNOWN',
  rule_type     text NOT NULL,
  pattern       text NOT NULL,
  priority      integer NOT NULL DEFAULT 100,
  enabled       boolean NOT NULL DEFAULT true,
  description   text
);

CREATE TABLE ce_output_schema (
  schema_id     bigint PRIMARY KEY,
  intent_code   text NOT NULL,
  state_code    text NOT NULL,
  schema_type   text NOT NULL DEFAULT 'SCHEMA_JSON',
  json_schema   jsonb NOT NULL,
  description   text,
  priority      integer NOT NULL DEFAULT 100,
  enabled       boolean NOT NULL DEFAULT true
);

CREATE TABLE ce_prompt_template (
  template_id          bigint PRIMARY KEY,
  intent_code          text NOT NULL,
  state_code           text NOT NULL,
  output_format        text NOT NULL,
  system_prompt        text,
  user_prompt          text,
  temperature          numeric(3, 2),
  interaction_mode     text,
  interaction_contract jsonb,
  description          text,
  enabled              boolean NOT NULL DEFAULT true,
  created_at           timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ce_response (
  response_id      bigint PRIMARY KEY,
  intent_code      text NOT NULL,
  state_code       text NOT NULL,
  output_format    text NOT NULL DEFAULT 'TEXT',
  response_type    text NOT NULL DEFAULT 'EXACT',
  exact_text       text,
  derivation_hint  text,
  json_schema      jsonb,
  priority         integer NOT NULL DEFAULT 100,
  description      text,
  enabled          boolean NOT NULL DEFAULT true
);

CREATE TABLE ce_rule (
  rule_id        bigint PRIMARY KEY,
  phase          text NOT NULL DEFAULT 'PRE_RESPONSE_RESOLUTION',
  intent_code    text NOT NULL,
  state_code     text NOT NULL,
  rule_type      text NOT NULL,
  match_pattern  text NOT NULL,
  action         text NOT NULL,
  action_value   text,
  priority       integer NOT NULL DEFAULT 100,
  description    text,
  enabled        boolean NOT NULL DEFAULT true
);

CREATE TABLE ce_policy (
  policy_id      bigint PRIMARY KEY,
  rule_type      text NOT NULL,
  pattern        text NOT NULL,
  response_text  text NOT NULL,
  priority       integer NOT NULL DEFAULT 10,
  description    text,
  enabled        boolean NOT NULL DEFAULT true
);

CREATE TABLE ce_pending_action (
  pending_action_id bigint PRIMARY KEY,
  intent_code       text NOT NULL,
  state_code        text NOT NULL,
  action_key        text NOT NULL,
  bean_name         text NOT NULL,
  method_names      text NOT NULL,
  priority          integer NOT NULL DEFAULT 100,
  description       text,
  enabled           boolean NOT NULL DEFAULT true
);

-- side_effect decides the activity retry class (D16): READ_ONLY retries freely,
-- IDEMPOTENT_WRITE retries with a stable idempotency key, NON_IDEMPOTENT_WRITE gets one attempt.
CREATE TABLE ce_mcp_tool (
  tool_id                   bigint PRIMARY KEY,
  tool_code                 text NOT NULL UNIQUE,
  tool_group                text NOT NULL,
  intent_code               text NOT NULL,
  state_code                text NOT NULL,
  description               text,
  side_effect               text NOT NULL DEFAULT 'READ_ONLY',
  requires_approval         boolean NOT NULL DEFAULT false,
  approval_timeout_ms       integer,
  max_attempts              integer,
  initial_interval_ms       integer,
  backoff_coefficient       numeric(5, 2),
  max_interval_ms           integer,
  start_to_close_timeout_ms integer,
  enabled                   boolean NOT NULL DEFAULT true,
  created_at                timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ce_mcp_db_tool (
  tool_id              bigint PRIMARY KEY REFERENCES ce_mcp_tool (tool_id) ON DELETE CASCADE,
  dialect              text NOT NULL DEFAULT 'POSTGRES',
  sql_template         text NOT NULL,
  param_schema         jsonb,
  safe_mode            boolean NOT NULL DEFAULT true,
  max_rows             integer NOT NULL DEFAULT 200,
  allowed_identifiers  jsonb
);

-- HTTP tools are table-configured (the Java engine used code-registered handlers). Secrets are
-- never stored: auth_secret_env names the environment variable that holds the key or token.
CREATE TABLE ce_mcp_http_tool (
  tool_id                    bigint PRIMARY KEY REFERENCES ce_mcp_tool (tool_id) ON DELETE CASCADE,
  http_method                text NOT NULL DEFAULT 'GET',
  url_template               text NOT NULL,
  headers                    jsonb,
  query_params               jsonb,
  body_template              text,
  auth_kind                  text NOT NULL DEFAULT 'NONE',
  auth_header_name           text,
  auth_secret_env            text,
  connect_timeout_ms         integer NOT NULL DEFAULT 2000,
  read_timeout_ms            integer NOT NULL DEFAULT 5000,
  max_attempts               integer NOT NULL DEFAULT 2,
  initial_backoff_ms         integer NOT NULL DEFAULT 200,
  max_backoff_ms             integer NOT NULL DEFAULT 2000,
  backoff_multiplier         numeric(5, 2) NOT NULL DEFAULT 2.0,
  retry_status_codes         jsonb NOT NULL DEFAULT '[429, 502, 503, 504]',
  retry_on_io_error          boolean NOT NULL DEFAULT true,
  circuit_enabled            boolean NOT NULL DEFAULT true,
  circuit_failure_threshold  integer NOT NULL DEFAULT 5,
  circuit_open_ms            integer NOT NULL DEFAULT 30000,
  response_mapping_kind      text NOT NULL DEFAULT 'RAW_JSON',
  response_mapping           jsonb
);

CREATE TABLE ce_mcp_planner (
  planner_id     bigint PRIMARY KEY,
  intent_code    text NOT NULL,
  state_code     text NOT NULL,
  system_prompt  text NOT NULL,
  user_prompt    text NOT NULL,
  enabled        boolean NOT NULL DEFAULT true,
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ce_mcp_sql_guardrail (
  guardrail_id  bigint PRIMARY KEY,
  rule_type     text NOT NULL,
  match_value   text NOT NULL,
  description   text,
  enabled       boolean NOT NULL DEFAULT true,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- Semantic metadata (Example 4, the semantic query chain).
CREATE TABLE ce_semantic_concept (
  concept_id    bigint PRIMARY KEY,
  concept_key   text NOT NULL UNIQUE,
  concept_kind  text NOT NULL,
  description   text,
  tags          jsonb,
  enabled       boolean NOT NULL DEFAULT true
);

CREATE TABLE ce_semantic_synonym (
  synonym_id        bigint PRIMARY KEY,
  synonym_text      text NOT NULL,
  concept_key       text NOT NULL,
  domain_key        text,
  confidence_score  numeric(4, 3),
  enabled           boolean NOT NULL DEFAULT true
);

CREATE TABLE ce_semantic_entity (
  entity_id       bigint PRIMARY KEY,
  entity_key      text NOT NULL UNIQUE,
  primary_table   text NOT NULL,
  related_tables  jsonb,
  synonyms        jsonb,
  fields_json     jsonb,
  description     text,
  enabled         boolean NOT NULL DEFAULT true
);

CREATE TABLE ce_semantic_query_class (
  query_class_id        bigint PRIMARY KEY,
  query_class_key       text NOT NULL UNIQUE,
  base_table_name       text NOT NULL,
  description           text,
  ast_skeleton_json     jsonb,
  allowed_filter_fields jsonb,
  default_select_fields jsonb,
  default_sort_fields   jsonb,
  enabled               boolean NOT NULL DEFAULT true
);

CREATE TABLE ce_semantic_mapping (
  mapping_id       bigint PRIMARY KEY,
  concept_key      text NOT NULL,
  entity_key       text NOT NULL,
  field_key        text NOT NULL,
  mapped_table     text NOT NULL,
  mapped_column    text NOT NULL,
  operator_type    text NOT NULL DEFAULT 'EQ',
  value_map_json   jsonb,
  query_class_key  text,
  priority         integer NOT NULL DEFAULT 100,
  enabled          boolean NOT NULL DEFAULT true
);

CREATE TABLE ce_semantic_join_path (
  join_path_id     bigint PRIMARY KEY,
  left_entity_key  text NOT NULL,
  right_entity_key text NOT NULL,
  join_expression  text NOT NULL,
  priority         integer NOT NULL DEFAULT 100,
  enabled          boolean NOT NULL DEFAULT true
);
