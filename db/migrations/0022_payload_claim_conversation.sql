-- Which conversation's turns stored each payload claim (db/claims/codec.ts records the turn workflow the SDK names
-- as it encodes), so that `conversations prune` and `conversations erase` delete the claim bodies, which hold the
-- conversation's text, with the conversation instead of leaving them until `claims prune`. A body is stored once by
-- content: two conversations that stored the same bytes each have a row, and the body goes with the last of them.
-- Claims stored before this table have no row; `claims prune` collects them by age as before.
CREATE TABLE IF NOT EXISTS ce_payload_claim_conversation (
  conversation_id  uuid NOT NULL,
  claim_hash       text NOT NULL REFERENCES ce_payload_claim (claim_hash) ON DELETE CASCADE,
  PRIMARY KEY (conversation_id, claim_hash)
);

CREATE INDEX IF NOT EXISTS ce_payload_claim_conversation_claim_idx ON ce_payload_claim_conversation (claim_hash);
