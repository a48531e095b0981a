-- Runtime tables written by turns.

CREATE TABLE ce_conversation (
  conversation_id      uuid PRIMARY KEY,
  status               text NOT NULL DEFAULT 'RUNNING',
  intent_code          text NOT NULL DEFAULT 'UNKNOWN',
  state_code           text NOT NULL DEFAULT 'UNKNOWN',
  context_json         jsonb NOT NULL DEFAULT '{}',
  last_user_text       text,
  last_assistant_json  jsonb,
  input_params_json    jsonb NOT NULL DEFAULT '{}',
  -- Number of committed turns. A turn commits with `WHERE turn_count = <its number - 1>`, so a
  -- retried, duplicate or reset-racing turn can never overwrite newer state.
  turn_count           integer NOT NULL DEFAULT 0,
  config_version       text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ce_conversation_intent_not_blank CHECK (btrim(intent_code) <> ''),
  CONSTRAINT ce_conversation_state_not_blank CHECK (btrim(state_code) <> '')
);

CREATE TABLE ce_conversation_history (
  history_id        bigserial PRIMARY KEY,
  conversation_id   uuid NOT NULL REFERENCES ce_conversation (conversation_id) ON DELETE CASCADE,
  turn_number       integer NOT NULL,
  user_input        text,
  assistant_output  jsonb,
  created_at        timestamptz NOT NULL DEFAULT now(),
  modified_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ce_conversation_history_turn_uq UNIQUE (conversation_id, turn_number)
);

-- idempotency_key = <turn id>/<step call key>/<index>: an activity retried after a crash
-- re-inserts the same keys and ON CONFLICT DO NOTHING keeps exactly one row per audit event.
CREATE TABLE ce_audit (
  audit_id         bigserial PRIMARY KEY,
  conversation_id  uuid NOT NULL REFERENCES ce_conversation (conversation_id) ON DELETE CASCADE,
  turn_number      integer,
  stage            text NOT NULL,
  payload_json     jsonb NOT NULL,
  idempotency_key  text NOT NULL,
  workflow_id      text,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT ce_audit_idempotency_uq UNIQUE (idempotency_key)
);
CREATE INDEX ce_audit_conversation_idx ON ce_audit (conversation_id, audit_id);

CREATE TABLE ce_llm_call_log (
  llm_call_id      bigserial PRIMARY KEY,
  conversation_id  uuid,
  turn_number      integer,
  call_kind        text NOT NULL,
  intent_code      text,
  state_code       text,
  provider         text NOT NULL,
  model            text,
  temperature      numeric(3, 2),
  prompt_text      text,
  user_context     text,
  response_text    text,
  success          boolean NOT NULL,
  error_message    text,
  latency_ms       integer,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX ce_llm_call_log_conversation_idx ON ce_llm_call_log (conversation_id, llm_call_id);

-- A retried HTTP request with the same Idempotency-Key maps to the turn it already started (D13).
CREATE TABLE ce_turn_request (
  conversation_id  uuid NOT NULL,
  idempotency_key  text NOT NULL,
  turn_number      integer NOT NULL,
  workflow_id      text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, idempotency_key)
);
