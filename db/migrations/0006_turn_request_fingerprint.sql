-- An Idempotency-Key names one request: the fingerprint of the body it was first sent with lets
-- the gateway refuse the same key with a different body (422 IDEMPOTENCY_KEY_REUSED) instead of
-- silently answering with the first request's result. Rows claimed before this column existed
-- keep NULL and are not compared.
ALTER TABLE ce_turn_request ADD COLUMN IF NOT EXISTS request_hash text;
