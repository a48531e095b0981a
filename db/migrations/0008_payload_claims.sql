-- Claim checks (issue #13, item 7): a Temporal payload larger than CLAIM_CHECK_THRESHOLD_BYTES is
-- stored here and replaced in event history by a small reference (db/claims/codec.ts). Rows are
-- addressed by the sha256 of the body, so storing the same payload again is a no-op that only
-- refreshes last_referenced_at. `convengine claims prune` deletes rows no history can still name:
-- those last referenced longer ago than the namespace's retention plus the longest turn.
CREATE TABLE IF NOT EXISTS ce_payload_claim (
  claim_hash          text PRIMARY KEY,
  body                bytea NOT NULL,
  size_bytes          integer NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  last_referenced_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS ce_payload_claim_last_referenced_idx ON ce_payload_claim (last_referenced_at);
