import type { Database } from '../pool';
import { sweepOrphanCalls } from './prune-orphan-calls';
import { retiredDigestSql } from './retired';

/** What a prune removed (or, in a dry run, would remove). */
export interface PruneCounts {
  conversations: number;
  /** ce_audit and ce_conversation_history rows, which their conversation's foreign key cascades to. */
  auditRows: number;
  historyRows: number;
  /** ce_llm_call_log rows of those conversations, and of none (no key cascades to them). */
  llmCalls: number;
  turnRequests: number;
  /**
   * ce_payload_claim bodies the conversations' turns stored (ce_payload_claim_conversation) and no other conversation
   * did: they hold the conversations' text, and their histories are no longer to be read.
   */
  claims: number;
  /** Conversations idle since the cutoff that were kept because a turn of theirs is still in flight (IN_FLIGHT). */
  skippedInFlight: number;
}

/**
 * A conversation is idle since `$1` when nothing of it is newer: its row, its audit trail (a turn in
 * progress, or waiting for an approval, writes rows before it commits) and its turn requests (the
 * gateway writes one before it starts a turn).
 */
const IDLE = `c.updated_at < $1
  AND NOT EXISTS (SELECT 1 FROM ce_turn_request r WHERE r.conversation_id = c.conversation_id AND r.created_at >= $1)
  AND NOT EXISTS (SELECT 1 FROM ce_audit a WHERE a.conversation_id = c.conversation_id AND a.created_at >= $1)`;

/** The conversation's newest audit row, an operator's action aside: one row on the (conversation_id, audit_id) index. */
const LAST_ROW = `SELECT a.turn_number, a.stage FROM ce_audit a
                    WHERE a.conversation_id = c.conversation_id AND a.stage <> 'OPERATOR_ACTION'
                    ORDER BY a.audit_id DESC LIMIT 1`;

/** The last row belongs to a turn past the committed ones and is not that turn's failure row. */
const UNENDED = `last.turn_number > c.turn_count AND last.stage NOT IN ('ENGINE_KNOWN_FAILURE', 'ENGINE_UNKNOWN_FAILURE')`;

/**
 * A turn of the conversation is in flight (running, parked on an approval, holding a tool call for an operator,
 * or failed and being run again): its last audit row (an operator's action aside) belongs to a turn past the
 * committed ones and is not that turn's failure row. This is how the API itself tells a turn's state
 * (api/db-queries.ts, lastTurn): a turn writes rows as it starts, commits by raising turn_count, and one that fails
 * for good ends on ENGINE_*_FAILURE; each run of it appends rows after the last one's. Read in the deleting
 * statement, under the conversation's row lock, so there is no gap between the check and the delete. A held tool
 * or an approval can leave a turn idle for days (hold_timeout_ms, 24 h by default), and deleting its conversation
 * under it failed the turn on a foreign key and left it impossible to retry (STALE_TURN). Turns Temporal says have
 * ended (`<conversation id>/<turn>` in the text[] parameter `ended`: a terminated turn, or one an older build failed
 * without a failure row) are not in flight.
 */
const inFlight = (ended: string) => `EXISTS (
    SELECT 1 FROM (${LAST_ROW}) last
     WHERE ${UNENDED} AND NOT (c.conversation_id::text || '/' || last.turn_number::text) = ANY(${ended}::text[]))`;

/** Idle since `$1`, and no turn in flight: what a prune deletes. */
const prunable = (ended: string) => `${IDLE} AND NOT ${inFlight(ended)}`;

/** The turns that keep idle conversations (`$1`) from a prune, to ask Temporal about. */
const IN_FLIGHT_TURNS = `
  SELECT c.conversation_id::text AS conversation_id, last.turn_number
    FROM ce_conversation c CROSS JOIN LATERAL (${LAST_ROW}) last
   WHERE ${IDLE} AND ${UNENDED}`;

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

/**
 * The walk's next `$2` candidates: conversations last updated before `$1`, in (updated_at, conversation_id) order
 * (ce_conversation_updated_idx), after the cursor `($4, $5)` of the batch before when `after`. Only these are checked
 * for being prunable, so a batch costs about its own size: picking the oldest prunable ones anew each batch checked
 * every idle conversation every time (2.7 s a batch with 54,000 of them).
 */
const candidates = (after: boolean) => `
  SELECT c.conversation_id, c.updated_at FROM ce_conversation c
   WHERE c.updated_at < $1${after ? ' AND (c.updated_at, c.conversation_id) > ($4::timestamptz, $5::uuid)' : ''}
   ORDER BY c.updated_at, c.conversation_id LIMIT $2`;

/**
 * One batch: the candidates, each with whether it is picked, that is prunable and now locked until the batch commits
 * (one locked by a turn starting now is passed over, for the next run). A turn of a picked one that starts now is not
 * started afresh once it is gone: its rows wait for the lock and then fail on their foreign key, and run again it
 * finds the id retired (migration 0027) and ends with CONVERSATION_RETIRED having written nothing, as a message to a
 * pruned id does (69dda59: a pruned conversation is not recreated; a returning user starts a new one). The last
 * candidate's updated_at is read as text, which keeps its microseconds (a Date drops them), to carry as the cursor.
 */
const pickBatch = (after: boolean) => `
  WITH next AS (${candidates(after)}
  ), picked AS (
    SELECT c.conversation_id FROM ce_conversation c JOIN next USING (conversation_id)
     WHERE ${prunable('$3')} FOR UPDATE OF c SKIP LOCKED
  )
  SELECT n.conversation_id, n.updated_at::text AS updated_at, p.conversation_id IS NOT NULL AS picked
    FROM next n LEFT JOIN picked p USING (conversation_id) ORDER BY n.updated_at, n.conversation_id`;
const PICK_FIRST_BATCH = pickBatch(false);
const PICK_NEXT_BATCH = pickBatch(true);

/**
 * Deletes the conversations of `$1` (uuid[], locked by pickBatch, their claim bodies by LOCK_CLAIMS_OF) with
 * everything that names them, and retires their ids. The counts are read in the same statement, before its deletes,
 * so cascaded rows are counted too.
 */
const PRUNE_BATCH = `
  WITH doomed AS (
    SELECT unnest($1::uuid[]) AS conversation_id
  ), calls AS (
    DELETE FROM ce_llm_call_log l USING doomed d WHERE l.conversation_id = d.conversation_id RETURNING 1
  ), requests AS (
    DELETE FROM ce_turn_request r USING doomed d WHERE r.conversation_id = d.conversation_id RETURNING 1
  ), gone AS (
    DELETE FROM ce_conversation c USING doomed d WHERE c.conversation_id = d.conversation_id RETURNING 1
  ), claims AS (${deleteClaimsOf('doomed')}
  ), retired AS (
    INSERT INTO ce_retired_conversation (conversation_digest, reason)
    SELECT ${retiredDigestSql('conversation_id')}, 'PRUNED' FROM doomed ON CONFLICT DO NOTHING
  )
  SELECT (SELECT count(*) FROM gone)::int AS conversations,
         (SELECT count(*) FROM ce_audit a JOIN doomed d USING (conversation_id))::int AS audit_rows,
         (SELECT count(*) FROM ce_conversation_history h JOIN doomed d USING (conversation_id))::int AS history_rows,
         (SELECT count(*) FROM calls)::int AS llm_calls,
         (SELECT count(*) FROM requests)::int AS turn_requests,
         (SELECT count(*) FROM claims)::int AS claims`;

const COUNT_IDLE = `
  WITH doomed AS (SELECT c.conversation_id FROM ce_conversation c WHERE ${prunable('$2')})
  SELECT (SELECT count(*) FROM doomed)::int AS conversations,
         (SELECT count(*) FROM ce_audit a JOIN doomed d USING (conversation_id))::int AS audit_rows,
         (SELECT count(*) FROM ce_conversation_history h JOIN doomed d USING (conversation_id))::int AS history_rows,
         (SELECT count(*) FROM ce_llm_call_log l JOIN doomed d USING (conversation_id))::int AS llm_calls,
         (SELECT count(*) FROM ce_turn_request r JOIN doomed d USING (conversation_id))::int AS turn_requests,
         (SELECT count(*) FROM ce_payload_claim p WHERE ${claimOnlyOf('doomed')})::int AS claims`;

const COUNT_IN_FLIGHT = `SELECT count(*)::int AS n FROM ce_conversation c WHERE ${IDLE} AND ${inFlight('$2')}`;

interface CountRow {
  conversations: number;
  audit_rows: number;
  history_rows: number;
  llm_calls: number;
  turn_requests: number;
  claims: number;
}

const countsOf = (row: CountRow | undefined): PruneCounts => ({
  conversations: row?.conversations ?? 0,
  auditRows: row?.audit_rows ?? 0,
  historyRows: row?.history_rows ?? 0,
  llmCalls: row?.llm_calls ?? 0,
  turnRequests: row?.turn_requests ?? 0,
  claims: row?.claims ?? 0,
  skippedInFlight: 0,
});

function add(total: PruneCounts, batch: PruneCounts): void {
  for (const key of Object.keys(total) as (keyof PruneCounts)[]) total[key] += batch[key];
}

export interface PruneOptions {
  /**
   * Conversations each batch examines, and so at most deletes: each batch is its own short transaction, so turns are
   * never blocked for long.
   */
  batchSize?: number;
  /** Count what would go; delete nothing. */
  dryRun?: boolean;
  /**
   * Asks Temporal whether a turn the rows show in flight has ended (api/turns/turn-ended.ts). Without it, or when it
   * cannot answer, such a turn keeps its conversation.
   */
  turnEnds?: (conversationId: string, turnNumber: number) => Promise<object | null>;
  /** Told after each committed batch what the run has deleted so far and how many conversations it examined. */
  onBatch?: (progress: PruneProgress) => void;
  /** Once aborted, the run stops after the batch in progress commits (none is left half done). */
  stop?: AbortSignal;
}

export interface PruneProgress {
  counts: PruneCounts;
  examined: number;
}

/** A stopped run (PruneOptions.stop) says so; its counts are what it deleted, and skippedInFlight was not counted. */
export type PruneResult = PruneCounts & { interrupted?: true };

/**
 * Deletes conversations idle since `cutoff`, with their audit trail, history, LLM call log, turn requests and the
 * payload claims only they stored, and LLM call log rows older than `cutoff` that belong to no conversation. A conversation with
 * a turn in flight is kept, however old its rows, and counted in `skippedInFlight`.
 */
export async function pruneConversations(db: Database, cutoff: Date, options: PruneOptions = {}): Promise<PruneResult> {
  const ended = options.turnEnds ? await endedTurns(db, cutoff, options.turnEnds) : [];
  if (options.dryRun) {
    const counts = await countPrunable(db, cutoff, ended);
    const sweep = await sweepOrphanCalls(db, cutoff, {
      batchSize: options.batchSize ?? 500,
      dryRun: true,
      tick: () => {},
    });
    return withSkipped(db, cutoff, ended, { ...counts, llmCalls: counts.llmCalls + sweep.orphans });
  }
  const walk = await prune(db, cutoff, ended, options);
  return walk.interrupted ? walk : withSkipped(db, cutoff, ended, walk);
}

async function withSkipped(db: Database, cutoff: Date, ended: string[], counts: PruneCounts): Promise<PruneCounts> {
  const [skipped] = (await db.$client.query<{ n: number }>(COUNT_IN_FLIGHT, [cutoff, ended])).rows;
  return { ...counts, skippedInFlight: skipped?.n ?? 0 };
}

/**
 * The turns keeping idle conversations that Temporal says have ended, as `<conversation id>/<turn>`. One that is
 * retried or reset after this check writes a turn request or audit rows first, so its conversation is no longer idle
 * when the deleting statement reads it.
 */
async function endedTurns(
  db: Database,
  cutoff: Date,
  turnEnds: NonNullable<PruneOptions['turnEnds']>
): Promise<string[]> {
  const { rows } = await db.$client.query<{ conversation_id: string; turn_number: number }>(IN_FLIGHT_TURNS, [cutoff]);
  const ended: string[] = [];
  for (const row of rows) {
    const end = await turnEnds(row.conversation_id, row.turn_number).catch(() => null);
    if (end) ended.push(`${row.conversation_id}/${row.turn_number}`);
  }
  return ended;
}

async function countPrunable(db: Database, cutoff: Date, ended: string[]): Promise<PruneCounts> {
  return countsOf((await db.$client.query<CountRow>(COUNT_IDLE, [cutoff, ended])).rows[0]);
}

/** Where the walk stands: after the last candidate it examined (null before the first batch). */
type Cursor = { updatedAt: string; conversationId: string } | null;

/**
 * Walks the conversations last updated before the cutoff, a batch at a time, deleting the prunable ones; the walk
 * only moves forward, so each is examined once. It deletes what a dry run counts: one behind the cursor cannot become
 * prunable meanwhile, as its updated_at, audit rows and turn requests only grow newer.
 */
async function prune(db: Database, cutoff: Date, ended: string[], options: PruneOptions): Promise<PruneResult> {
  const batchSize = options.batchSize ?? 500;
  const total = countsOf(undefined);
  let cursor: Cursor = null;
  let examined = 0;
  for (;;) {
    if (options.stop?.aborted) return { ...total, interrupted: true };
    const batch = await pruneBatch(db, [cutoff, batchSize, ended], cursor);
    add(total, batch.counts);
    examined += batch.examined;
    cursor = batch.cursor;
    options.onBatch?.({ counts: { ...total }, examined });
    if (batch.examined < batchSize) break;
  }
  const sweep = await sweepOrphanCalls(db, cutoff, {
    batchSize,
    dryRun: false,
    stop: options.stop,
    tick: (orphans) => options.onBatch?.({ counts: { ...total, llmCalls: total.llmCalls + orphans }, examined }),
  });
  total.llmCalls += sweep.orphans;
  return sweep.interrupted ? { ...total, interrupted: true } : total;
}

interface CandidateRow {
  conversation_id: string;
  updated_at: string;
  picked: boolean;
}

/**
 * One batch, in a transaction of its own: its conversations, then their claim bodies (LOCK_CLAIMS_OF, as an erase
 * takes them), are locked before the deleting statement reads, so a body another conversation stores meanwhile is
 * seen as that one's and kept. In one statement, the delete read the links in a snapshot taken before such a store
 * committed, deleted the body after waiting for it, and the cascade took the other conversation's new link.
 */
async function pruneBatch(db: Database, params: [Date, number, string[]], cursor: Cursor) {
  const client = await db.$client.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await (cursor
      ? client.query<CandidateRow>(PICK_NEXT_BATCH, [...params, cursor.updatedAt, cursor.conversationId])
      : client.query<CandidateRow>(PICK_FIRST_BATCH, params));
    const ids = rows.filter((row) => row.picked).map((row) => row.conversation_id);
    let counts = countsOf(undefined);
    if (ids.length > 0) {
      await client.query(LOCK_CLAIMS_OF, [ids]);
      counts = countsOf((await client.query<CountRow>(PRUNE_BATCH, [ids])).rows[0]);
    }
    await client.query('COMMIT');
    const last = rows.at(-1);
    const next: Cursor = last ? { updatedAt: last.updated_at, conversationId: last.conversation_id } : cursor;
    return { examined: rows.length, cursor: next, counts };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
