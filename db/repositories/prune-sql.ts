/**
 * The SQL that says what `conversations prune` may delete (db/repositories/retention.ts), shared by its batches and
 * its sweep of the LLM call log (prune-orphan-calls.ts).
 */

/**
 * Call log rows (`l`) older than `$1` whose conversation is gone (or that never had one): a probe of the key per row
 * (OFFSET 0 keeps the planner from reading every conversation into a hash instead, for a span of 2,000 rows).
 */
export const ORPHAN_CALLS = `l.created_at < $1 AND (l.conversation_id IS NULL
  OR NOT EXISTS (SELECT 1 FROM ce_conversation c WHERE c.conversation_id = l.conversation_id OFFSET 0))`;
