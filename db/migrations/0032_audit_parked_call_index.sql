-- migrate: no-transaction
--
-- `convengine config diff` and `config apply` warn of turns parked on a tool the change touches
-- (db/repositories/parked-turns.ts). They found them by reading every conversation's audit rows past its committed
-- turns: 200,000 conversations cost 3.3 s on every diff, though only a handful were parked. A parked turn's
-- MCP_TOOL_APPROVAL_REQUESTED or TOOL_HELD row names when its wait ends (expires_at, an ISO-8601 UTC text, which
-- sorts as its time does under the C collation); this index holds those rows by that time, so the query reads only
-- the calls whose wait has not ended, whatever the trail's length. Built CONCURRENTLY
-- (db/migrate-outside-transaction.ts) so that turns keep writing audit rows while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS ce_audit_parked_call_idx ON ce_audit (((payload_json->>'expires_at') COLLATE "C"))
  WHERE stage IN ('MCP_TOOL_APPROVAL_REQUESTED', 'TOOL_HELD');
