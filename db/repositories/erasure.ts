import type { Database } from '../pool';
import { deleteClaimsOf, LOCK_CLAIMS_OF, type PruneCounts } from './retention';
import { lockConversationCreation, retiredDigest } from './retired';

/** What an erase deleted from the database: every row naming the conversation, counted as a prune counts them. */
export type ErasedRows = Omit<PruneCounts, 'skippedInFlight'> & {
  /** The highest turn number any row named: the turn workflows to delete are turn-<id>-1 … turn-<id>-<turns>. */
  turns: number;
};

/**
 * Every row naming `$1`, deleted in one statement (all or nothing), and the retired id's accountability record
 * (`$2` its digest, `$3` who) written in the same one. The audit trail and history are deleted as rows of their own:
 * a first turn's rows may outlive a conversation row that was never written.
 */
const ERASE = `
  WITH doomed AS (SELECT $1::uuid AS conversation_id),
  calls AS (DELETE FROM ce_llm_call_log WHERE conversation_id = $1 RETURNING coalesce(turn_number, 0) AS turn),
  requests AS (DELETE FROM ce_turn_request WHERE conversation_id = $1 RETURNING turn_number AS turn),
  audits AS (DELETE FROM ce_audit WHERE conversation_id = $1 RETURNING turn_number AS turn),
  history AS (DELETE FROM ce_conversation_history WHERE conversation_id = $1 RETURNING turn_number AS turn),
  gone AS (DELETE FROM ce_conversation WHERE conversation_id = $1 RETURNING turn_count AS turn),
  claims AS (${deleteClaimsOf('doomed')}
  ), counts AS (
    SELECT (SELECT count(*) FROM gone)::int AS conversations, (SELECT count(*) FROM audits)::int AS "auditRows",
           (SELECT count(*) FROM history)::int AS "historyRows", (SELECT count(*) FROM calls)::int AS "llmCalls",
           (SELECT count(*) FROM requests)::int AS "turnRequests", (SELECT count(*) FROM claims)::int AS claims,
           (SELECT coalesce(max(turn), 0) FROM (SELECT turn FROM calls UNION ALL SELECT turn FROM requests
              UNION ALL SELECT turn FROM audits UNION ALL SELECT turn FROM gone) t)::int AS turns
  ), record AS (
    INSERT INTO ce_retired_conversation (conversation_digest, reason, erased_by, erased_counts)
    SELECT $2, 'ERASED', $3, to_jsonb(counts) FROM counts
    ON CONFLICT (conversation_digest) DO UPDATE SET reason = 'ERASED', erased_by = $3, retired_at = now(),
      erased_counts = CASE WHEN (excluded.erased_counts->>'turns')::int > 0 OR ce_retired_conversation.erased_counts IS NULL
                           THEN excluded.erased_counts ELSE ce_retired_conversation.erased_counts END
  )
  SELECT * FROM counts`;

/**
 * The turn the conversation's last audit row (an operator's action aside) belongs to, and its committed turns. A row
 * no turn has committed to and that has no audit row yet is turn 1's, which has just created it (its first step
 * writes its rows as it ends): turn 1 is read as that row's turn, so the erase asks Temporal about it.
 */
const LAST_TURN = `
  SELECT coalesce(a.turn_number, 1) AS turn_number, coalesce(a.stage, '') AS stage,
         coalesce(c.turn_count, 0) AS turn_count
    FROM (SELECT $1::uuid AS conversation_id) k
    LEFT JOIN ce_conversation c USING (conversation_id)
    LEFT JOIN LATERAL (SELECT turn_number, stage FROM ce_audit
                        WHERE conversation_id = k.conversation_id AND stage <> 'OPERATOR_ACTION'
                        ORDER BY audit_id DESC LIMIT 1) a ON true
   WHERE a.turn_number IS NOT NULL OR c.turn_count = 0`;

const FAILURE_STAGES = new Set(['ENGINE_KNOWN_FAILURE', 'ENGINE_UNKNOWN_FAILURE']);

/**
 * The turn of the conversation the rows show in flight (as a prune tells it, db/repositories/retention.ts), or null.
 * Under the conversation's row lock when `db` is a transaction's client.
 */
export async function unendedTurn(db: Pick<Database['$client'], 'query'>, conversationId: string) {
  type Row = { turn_number: number; stage: string; turn_count: number };
  const [last] = (await db.query<Row>(LAST_TURN, [conversationId])).rows;
  if (!last || last.turn_number <= last.turn_count || FAILURE_STAGES.has(last.stage)) return null;
  return last.turn_number;
}

/**
 * Deletes every row naming the conversation and records the erase, in one transaction under the conversation's row
 * lock; or, when the rows show a turn in flight that is not `ended` (Temporal says it ended), deletes nothing and
 * answers that turn's number.
 */
export async function eraseConversationRows(
  db: Database,
  conversationId: string,
  options: { ended: number | null; erasedBy: string }
): Promise<ErasedRows | { inFlight: number }> {
  const client = await db.$client.connect();
  try {
    await client.query('BEGIN');
    // First, so that a first turn creating the conversation meanwhile either shows here or is refused (migration 0027).
    await lockConversationCreation(client, conversationId);
    await client.query('SELECT 1 FROM ce_conversation WHERE conversation_id = $1 FOR UPDATE', [conversationId]);
    const unended = await unendedTurn(client, conversationId);
    if (unended !== null && unended !== options.ended) {
      await client.query('ROLLBACK');
      return { inFlight: unended };
    }
    await client.query(LOCK_CLAIMS_OF, [[conversationId]]);
    const params = [conversationId, retiredDigest(conversationId), options.erasedBy];
    const [counts] = (await client.query<ErasedRows>(ERASE, params)).rows;
    await client.query('COMMIT');
    return counts as ErasedRows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** What Temporal still holds of the erased conversation (null: nothing), and the turns an erase run again deletes. */
export async function recordTemporalErasure(db: Database, conversationId: string, remaining: string | null) {
  await db.$client.query('UPDATE ce_retired_conversation SET temporal_remaining = $2 WHERE conversation_digest = $1', [
    retiredDigest(conversationId),
    remaining,
  ]);
}

/** The highest turn an earlier erase of the conversation found (0: none): its executions are deleted again. */
export async function erasedTurns(db: Database, conversationId: string): Promise<number> {
  const { rows } = await db.$client.query<{ turns: number | null }>(
    "SELECT (erased_counts->>'turns')::int AS turns FROM ce_retired_conversation WHERE conversation_digest = $1",
    [retiredDigest(conversationId)]
  );
  return rows[0]?.turns ?? 0;
}

/** Whether the id is retired already, or a row of any table naming a conversation (ce_*) names it. */
const NAMED = `
  SELECT EXISTS (SELECT 1 FROM ce_retired_conversation WHERE conversation_digest = $2)
      OR EXISTS (SELECT 1 FROM ce_conversation WHERE conversation_id = $1)
      OR EXISTS (SELECT 1 FROM ce_audit WHERE conversation_id = $1)
      OR EXISTS (SELECT 1 FROM ce_conversation_history WHERE conversation_id = $1)
      OR EXISTS (SELECT 1 FROM ce_llm_call_log WHERE conversation_id = $1)
      OR EXISTS (SELECT 1 FROM ce_turn_request WHERE conversation_id = $1)
      OR EXISTS (SELECT 1 FROM ce_payload_claim_conversation WHERE conversation_id = $1) AS named`;

/** Whether the database knows the id: retired already (an erase of it again is idempotent), or named by a row. */
export async function namedInDatabase(db: Database, conversationId: string): Promise<boolean> {
  const { rows } = await db.$client.query<{ named: boolean }>(NAMED, [conversationId, retiredDigest(conversationId)]);
  return rows[0]?.named ?? false;
}
