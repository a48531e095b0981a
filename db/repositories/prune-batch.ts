import type { PoolClient } from 'pg';
import type { Database } from '../pool';
import { AUDIT, CALLS, drain, drainSpan, HISTORY, REQUESTS } from './prune-drain';
import { deleteClaimsOf, IDLE, inFlightTurn, LOCK_CLAIMS_OF, prunable } from './prune-sql';
import type { PruneCounts } from './retention';
import { retiredDigestSql } from './retired';

/** A place in the walk: after this conversation in (updated_at, conversation_id) order. */
export type Cursor = { updatedAt: string; conversationId: string };

/** The conversations a batch examines: the walk's next `limit` after `cursor` (null: from the start), or these ids. */
export type Source = { after: Cursor | null; limit: number } | { ids: string[]; windowEnd: Cursor | null };

/** What a batch found of each conversation it examined, as its statement's snapshot saw it. */
export interface Candidate {
  conversation_id: string;
  /** As text, which keeps its microseconds (a Date drops them), to carry as the cursor. */
  updated_at: string;
  idle: boolean;
  /** The turn that keeps it (prune-sql.ts, inFlightTurn), or null. */
  in_flight_turn: number | null;
  /** Deleted by the batch (a dry run: would be). One idle, with no turn in flight, but not picked was locked. */
  picked: boolean;
}

/**
 * Parameters of the statements below: `$1` the cutoff, `$2` the batch's size or its ids, `$3` the turns Temporal
 * says have ended, `$4`, `$5` the cursor. The status columns are read for the candidates alone: the index scan on
 * ce_conversation_updated_idx hands the LIMIT one row at a time, so a batch costs about its own size however many
 * conversations are idle (picking the oldest prunable ones anew each batch, and counting and asking Temporal about
 * every idle conversation once a run, read them all: 2.7 s a batch with 54,000 idle; 5 s a run with 99,000).
 */
const candidates = (where: string, tail = '') => `
  SELECT c.conversation_id, c.updated_at, (${IDLE}) AS idle, ${inFlightTurn('$3')} AS in_flight_turn
    FROM ce_conversation c WHERE ${where} ${tail}`;

const WINDOW_FIRST = candidates('c.updated_at < $1', 'ORDER BY c.updated_at, c.conversation_id LIMIT $2');
const WINDOW_NEXT = candidates(
  'c.updated_at < $1 AND (c.updated_at, c.conversation_id) > ($4::timestamptz, $5::uuid)',
  'ORDER BY c.updated_at, c.conversation_id LIMIT $2'
);
const BY_IDS = candidates('c.conversation_id = ANY($2::uuid[])');

/**
 * Picks the prunable candidates and locks them until the batch commits; one a turn holds (its commit in progress)
 * is passed over, not waited for, and reported as not picked. One a turn updated since the statement's snapshot was
 * taken is read again once locked, and its new updated_at keeps it (a turn commits by raising turn_count and
 * updated_at); so the check read in the same statement leaves no gap between the check and the delete. A turn of a picked one that starts now is not started
 * afresh once it is gone: its rows wait for the lock and then fail on their foreign key, and run again it finds the
 * id retired (migration 0027) and ends with CONVERSATION_RETIRED having written nothing, as a message to a pruned id
 * does (69dda59: a pruned conversation is not recreated; a returning user starts a new one).
 */
const pick = (source: string) => `
  WITH next AS (${source}
  ), picked AS (
    SELECT c.conversation_id FROM ce_conversation c JOIN next n USING (conversation_id)
     WHERE n.idle AND n.in_flight_turn IS NULL AND c.updated_at < $1 FOR UPDATE OF c SKIP LOCKED
  )
  SELECT n.conversation_id, n.updated_at::text AS updated_at, n.idle, n.in_flight_turn,
         p.conversation_id IS NOT NULL AS picked
    FROM next n LEFT JOIN picked p USING (conversation_id) ORDER BY n.updated_at, n.conversation_id`;

/** The same, for a dry run: nothing is locked. */
const look = (source: string) => `
  SELECT n.conversation_id, n.updated_at::text AS updated_at, n.idle, n.in_flight_turn,
         n.idle AND n.in_flight_turn IS NULL AS picked
    FROM (${source}) n ORDER BY n.updated_at, n.conversation_id`;

const PICK = { first: pick(WINDOW_FIRST), next: pick(WINDOW_NEXT), ids: pick(BY_IDS) };
const LOOK = { first: look(WINDOW_FIRST), next: look(WINDOW_NEXT), ids: look(BY_IDS) };

/**
 * Deletes the conversations of `$1` (uuid[], locked by pick, their claim bodies by LOCK_CLAIMS_OF) with everything
 * that names them, and retires their ids. Their audit rows, history, calls and turn requests have gone already
 * (drainRows): it finds only calls or turn requests written since, and counts those. Audit and history rows are not
 * counted again: none can be written since (their foreign key waits on the conversation's lock), and a count would
 * read past the index entries of every row the drain deleted, as the cascade still does once.
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
         0 AS audit_rows,
         0 AS history_rows,
         (SELECT count(*) FROM calls)::int AS llm_calls,
         (SELECT count(*) FROM requests)::int AS turn_requests,
         (SELECT count(*) FROM claims)::int AS claims`;

/**
 * A dry run's count of what the conversations of `$2` would take with them. A claim body goes with the last of the
 * conversations that stored it, in the walk's order: it is counted here when every other conversation that stored it
 * is one the walk has passed (up to the batch's last candidate, `$4`, `$5`) and would prune, as the batches of a
 * prune delete it once the last of them goes.
 */
const COUNT_DOOMED = `
  WITH doomed AS (SELECT unnest($2::uuid[]) AS conversation_id)
  SELECT (SELECT count(*) FROM doomed)::int AS conversations,
         (SELECT count(*) FROM ce_audit a JOIN doomed d USING (conversation_id))::int AS audit_rows,
         (SELECT count(*) FROM ce_conversation_history h JOIN doomed d USING (conversation_id))::int AS history_rows,
         (SELECT count(*) FROM ce_llm_call_log l JOIN doomed d USING (conversation_id))::int AS llm_calls,
         (SELECT count(*) FROM ce_turn_request r JOIN doomed d USING (conversation_id))::int AS turn_requests,
         (SELECT count(*) FROM ce_payload_claim p
           WHERE p.claim_hash IN (SELECT k.claim_hash FROM ce_payload_claim_conversation k JOIN doomed USING (conversation_id))
             AND NOT EXISTS (
               SELECT 1 FROM ce_payload_claim_conversation o LEFT JOIN ce_conversation c USING (conversation_id)
                WHERE o.claim_hash = p.claim_hash AND o.conversation_id NOT IN (SELECT conversation_id FROM doomed)
                  AND (c.conversation_id IS NULL OR (c.updated_at, c.conversation_id) > ($4::timestamptz, $5::uuid)
                       OR NOT (${prunable('$3')}))))::int AS claims`;

interface CountRow {
  conversations: number;
  audit_rows: number;
  history_rows: number;
  llm_calls: number;
  turn_requests: number;
  claims: number;
}

export const countsOf = (row: CountRow | undefined): PruneCounts => ({
  conversations: row?.conversations ?? 0,
  auditRows: row?.audit_rows ?? 0,
  historyRows: row?.history_rows ?? 0,
  llmCalls: row?.llm_calls ?? 0,
  turnRequests: row?.turn_requests ?? 0,
  claims: row?.claims ?? 0,
  skippedInFlight: 0,
  skippedBusy: 0,
});

/** What a batch is given besides its conversations: the cutoff and the turns Temporal says have ended. */
export interface BatchContext {
  cutoff: Date;
  ended: string[];
  dryRun: boolean;
  /** The most rows a statement of a batch deletes (prune-drain.ts). */
  rowsPerStatement: number;
}

export interface Examined {
  rows: Candidate[];
  counts: PruneCounts;
}

/** The statement for `source` and its parameters. */
function statementOf(source: Source, ctx: BatchContext): [string, unknown[]] {
  const kind = 'ids' in source ? 'ids' : source.after ? 'next' : 'first';
  const text = (ctx.dryRun ? LOOK : PICK)[kind];
  if ('ids' in source) return [text, [ctx.cutoff, source.ids, ctx.ended]];
  const after = source.after ? [source.after.updatedAt, source.after.conversationId] : [];
  return [text, [ctx.cutoff, source.limit, ctx.ended, ...after]];
}

/** Deletes (a dry run: counts) the prunable conversations of `source`, and says what it found of each. */
export function examine(db: Database, source: Source, ctx: BatchContext): Promise<Examined> {
  return ctx.dryRun ? count(db, source, ctx) : prune(db, source, ctx);
}

async function count(db: Database, source: Source, ctx: BatchContext): Promise<Examined> {
  const { rows } = await db.$client.query<Candidate>(...statementOf(source, ctx));
  const ids = rows.filter((row) => row.picked).map((row) => row.conversation_id);
  const last = rows.at(-1);
  const end =
    'ids' in source ? source.windowEnd : last && { updatedAt: last.updated_at, conversationId: last.conversation_id };
  if (ids.length === 0 || !end) return { rows, counts: countsOf(undefined) };
  const params = [ctx.cutoff, ids, ctx.ended, end.updatedAt, end.conversationId];
  return { rows, counts: countsOf((await db.$client.query<CountRow>(COUNT_DOOMED, params)).rows[0]) };
}

/**
 * A turn request of a picked conversation written since the batch picked it (`$1` its ids, `$2` the cutoff): its user
 * has come back while the batch drained its rows. The gateway writes one before it starts a turn and waits on no lock
 * of the conversation's (ce_turn_request has no foreign key), so it is what shows a return before the batch commits.
 */
const RETURNED = `SELECT 1 FROM ce_turn_request
   WHERE conversation_id = ANY($1::uuid[]) AND created_at >= $2 LIMIT 1`;

/**
 * One batch, in a transaction of its own: its conversations, then their claim bodies (LOCK_CLAIMS_OF, as an erase
 * takes them), are locked before the deleting statement reads, so a body another conversation stores meanwhile is
 * seen as that one's and kept. In one statement, the delete read the links in a snapshot taken before such a store
 * committed, deleted the body after waiting for it, and the cascade took the other conversation's new link.
 * The conversations' rows go first, `rowsPerStatement` at a time (drainRows), so no statement's deletes (its row
 * locks, its WAL) grow with the audit trails it meets; the last one's cascade still reads past the drained rows' index
 * entries, which the transaction cannot clean. The claim bodies are locked only for that last statement.
 * A user who comes back while the rows drain (minutes, for long trails) is not deleted under the new turn: the batch
 * rolls back, losing nothing, and its conversations read as busy, which the run tries again at its end, when the one
 * that came back is no longer idle.
 */
async function prune(db: Database, source: Source, ctx: BatchContext): Promise<Examined> {
  const client: PoolClient = await db.$client.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<Candidate>(...statementOf(source, ctx));
    const ids = rows.filter((row) => row.picked).map((row) => row.conversation_id);
    const counts = ids.length > 0 ? await pruneLocked(client, ids, ctx) : countsOf(undefined);
    if (!counts) {
      await client.query('ROLLBACK');
      return { rows: rows.map((row) => ({ ...row, picked: false })), counts: countsOf(undefined) };
    }
    await client.query('COMMIT');
    return { rows, counts };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Deletes the picked conversations `ids` and their rows, and says what went; null: one has come back meanwhile. */
async function pruneLocked(client: PoolClient, ids: string[], ctx: BatchContext): Promise<PruneCounts | null> {
  const drained = await drainRows(client, ids, ctx);
  if ((await client.query(RETURNED, [ids, ctx.cutoff])).rows.length > 0) return null;
  await client.query(LOCK_CLAIMS_OF, [ids]);
  const counts = countsOf((await client.query<CountRow>(PRUNE_BATCH, [ids])).rows[0]);
  for (const key of Object.keys(drained) as (keyof typeof drained)[]) counts[key] += drained[key];
  return counts;
}

/** Turn requests since the cutoff (`$5`) stay for RETURNED to find: the pick saw none, so each is a user's return. */
const DRAINED = [
  ['auditRows', drainSpan(AUDIT), false],
  ['historyRows', drainSpan(HISTORY), false],
  ['llmCalls', drainSpan(CALLS), false],
  ['turnRequests', drainSpan(REQUESTS, { row: 't.created_at < $5' }), true],
] as const;

/**
 * Deletes the rows naming the picked conversations `ids` (locked, and checked prunable, by the batch's transaction),
 * `rowsPerStatement` at a time, before PRUNE_BATCH deletes the conversations: their foreign key's cascade, or one
 * DELETE per table, made a statement's rows those of every audit trail of the batch (millions, for a few long
 * conversations). In the batch's transaction: a process stopped midway leaves its conversations whole, for the next
 * run to prune.
 */
async function drainRows(client: PoolClient, ids: string[], ctx: BatchContext) {
  const counts = { auditRows: 0, historyRows: 0, llmCalls: 0, turnRequests: 0 };
  for (const [count, statement, beforeCutoff] of DRAINED) {
    const options = { limit: ctx.rowsPerStatement, params: beforeCutoff ? [ctx.cutoff] : [] };
    counts[count] = (await drain(client, statement, ids, options)).deleted;
  }
  return counts;
}
