-- Conversation ids that may take no turn again: pruned or erased. Without it a pruned conversation was refused only
-- while Temporal still held its completed turns, and a retry of its failed first turn, or the console's view of a
-- turn, brought its text back from history. Kept as the sha256 (hex) of the lower-case id: the row says an id was
-- retired, and when, without naming the conversation.
CREATE TABLE IF NOT EXISTS ce_retired_conversation (
  conversation_digest  text PRIMARY KEY,
  retired_at           timestamptz NOT NULL DEFAULT now(),
  reason               text NOT NULL CHECK (reason IN ('PRUNED', 'ERASED'))
);
