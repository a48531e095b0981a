-- Issue #13, item 6: an audit write replaces what an earlier attempt of the same step left under
-- its key prefix (`<turn id>/<call key>/`). It used to find those rows by scanning every row of the
-- conversation, so each step's write grew with the conversation. The prefix is now a column of its
-- own, indexed, and the write reads only the rows under the prefixes it owns. (A range scan over
-- the idempotency key itself was tried: as a prepared statement PostgreSQL plans it generically,
-- guesses a tenth of the table per range, and scans the whole table.)
ALTER TABLE ce_audit
  ADD COLUMN key_prefix text GENERATED ALWAYS AS (substring(idempotency_key FROM '^(.*/)')) STORED;
CREATE INDEX ce_audit_key_prefix_idx ON ce_audit (key_prefix);
