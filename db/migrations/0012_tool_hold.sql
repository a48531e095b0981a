-- What a tool call does once its automatic retries are used up (issue #22). ANSWER (the default,
-- the behaviour before this column): the planner gets the failure. HOLD: the turn stays open and
-- waits for an operator (retry, skip, fail, mark done) up to hold_timeout_ms (NULL: 24 h), then
-- falls back to ANSWER. A NON_IDEMPOTENT_WRITE whose outcome is unknown is held whatever this says.
ALTER TABLE ce_mcp_tool ADD COLUMN IF NOT EXISTS on_retries_exhausted text NOT NULL DEFAULT 'ANSWER';
ALTER TABLE ce_mcp_tool ADD COLUMN IF NOT EXISTS hold_timeout_ms integer;
