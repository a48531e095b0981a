/**
 * The SQL that says which conversations `conversations prune` may delete (db/repositories/retention.ts), shared by
 * its batches (prune-batch.ts) and `conversations erase`.
 */

/**
 * A conversation is idle since `$1` when nothing of it is newer: its row, its audit trail (a turn in
 * progress, or waiting for an approval, writes rows before it commits) and its turn requests (the
 * gateway writes one before it starts a turn). Each is a probe of the conversation's own rows: OFFSET 0 keeps the planner
 * from reading every recent row of the table into a hash instead (475,000 audit rows for a batch of 500 candidates).
 */
export const IDLE = `c.updated_at < $1
  AND NOT EXISTS (SELECT 1 FROM ce_turn_request r
                   WHERE r.conversation_id = c.conversation_id AND r.created_at >= $1 OFFSET 0)
  AND NOT EXISTS (SELECT 1 FROM ce_audit a WHERE a.conversation_id = c.conversation_id AND a.created_at >= $1 OFFSET 0)`;

/** The conversation's newest audit row, an operator's action aside: one row on the (conversation_id, audit_id) index. */
const LAST_ROW = `SELECT a.turn_number, a.stage FROM ce_audit a
                    WHERE a.conversation_id = c.conversation_id AND a.stage <> 'OPERATOR_ACTION'
                    ORDER BY a.audit_id DESC LIMIT 1`;

/** The last row belongs to a turn past the committed ones and is not that turn's failure row. */
const UNENDED = `last.turn_number > c.turn_count AND last.stage NOT IN ('ENGINE_KNOWN_FAILURE', 'ENGINE_UNKNOWN_FAILURE')`;

/**
 * The number of the conversation's turn in flight (running, parked on an approval, holding a tool call for an
 * operator, or failed and being run again), or null: its last audit row (an operator's action aside) belongs to a
 * turn past the committed ones and is not that turn's failure row. This is how the API itself tells a turn's state
 * (api/db-queries.ts, lastTurn): a turn writes rows as it starts, commits by raising turn_count, and one that fails
 * for good ends on ENGINE_*_FAILURE; each run of it appends rows after the last one's. A held tool or an approval
 * can leave a turn idle for days (hold_timeout_ms, 24 h by default), and deleting its conversation under it failed
 * the turn on a foreign key and left it impossible to retry (STALE_TURN). Turns Temporal says have ended
 * (`<conversation id>/<turn>` in the text[] parameter `ended`: a terminated turn, or one an older build failed
 * without a failure row) are not in flight.
 */
export const inFlightTurn = (ended: string) => `(
    SELECT last.turn_number FROM (${LAST_ROW}) last
     WHERE ${UNENDED} AND NOT (c.conversation_id::text || '/' || last.turn_number::text) = ANY(${ended}::text[]))`;

/**
 * Idle since `$1`, and no turn in flight: what a prune deletes. Read in the deleting batch, under the conversation's
 * row lock, so there is no gap between the check and the delete.
 */
export const prunable = (ended: string) => `${IDLE} AND ${inFlightTurn(ended)} IS NULL`;

/**
 * A claim that a conversation of `doomed` (a CTE of conversation_id) stored and no other conversation did. A body is
 * stored once by content, so one another conversation also stored (the same large tool catalogue, say) stays.
 */
export const claimOnlyOf = (doomed: string) => `p.claim_hash IN (
      SELECT k.claim_hash FROM ce_payload_claim_conversation k JOIN ${doomed} USING (conversation_id))
    AND NOT EXISTS (SELECT 1 FROM ce_payload_claim_conversation o
                     WHERE o.claim_hash = p.claim_hash AND o.conversation_id NOT IN (SELECT conversation_id FROM ${doomed}))`;

/**
 * Locks the claim bodies the conversations of `$1` (uuid[]) stored, in hash order (as the claim store writes them), so
 * that a statement after it, reading a snapshot of its own, sees every other conversation's link to them: a turn
 * storing the same bytes meanwhile (ce_payload_claim is written ON CONFLICT DO UPDATE, which locks the row) has
 * committed its link first, or waits for the delete and then stores the body again. Without it, the delete's snapshot
 * missed such a link, the body went, and the cascade took the link with it: that turn's history could not be read.
 */
export const LOCK_CLAIMS_OF = `SELECT 1 FROM ce_payload_claim
   WHERE claim_hash IN (SELECT claim_hash FROM ce_payload_claim_conversation WHERE conversation_id = ANY($1::uuid[]))
   ORDER BY claim_hash FOR UPDATE`;

/** Deletes those claims; their ce_payload_claim_conversation rows go by the foreign key's cascade. */
export const deleteClaimsOf = (doomed: string) => `
    DELETE FROM ce_payload_claim p WHERE ${claimOnlyOf(doomed)} RETURNING 1
  ), claim_links AS (
    DELETE FROM ce_payload_claim_conversation k USING ${doomed} d WHERE k.conversation_id = d.conversation_id`;
