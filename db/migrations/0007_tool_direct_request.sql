-- Whether a request may call a tool directly through inputParams.tool_request (D21). NULL takes
-- the default by class: read-only HTTP tools may be called directly; DB tools (postgres.query,
-- the semantic chain, ce_mcp_db_tool rows) and every write may not, unless a row says so.
ALTER TABLE ce_mcp_tool ADD COLUMN IF NOT EXISTS allow_direct_request boolean;
