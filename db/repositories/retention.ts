import type { Database } from '../pool';
import { countsOf, examine, type BatchContext, type Candidate, type Cursor } from './prune-batch';
import { ROWS_PER_CONVERSATION } from './prune-drain';
import { sweepOrphanCalls } from './prune-orphan-calls';

export { claimOnlyOf, deleteClaimsOf, LOCK_CLAIMS_OF } from './prune-sql';

/** What a prune removed (or, in a dry run, would remove). */
export interface PruneCounts {
  conversations: number;
  /** ce_audit and ce_conversation_history rows of those conversations. */
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
  /**
   * Idle conversations, with no turn in flight, that another transaction held locked (a turn committing, an erase)
   * both when the walk reached them and when it tried them again at its end (a stopped run: when the walk reached
   * them, before it could try them again): kept, for the next run, which walks from the start.
   */
  skippedBusy: number;
}

export interface PruneOptions {
  /**
   * Conversations each batch examines, and so at most deletes: each batch is its own transaction, which locks only
   * idle conversations. No statement deletes more than four audit, history, call or turn-request rows per
   * conversation of a batch (prune-drain.ts); the batch's last deletes its conversations, the claim bodies and links
   * only they stored, and any call or turn-request row written since the drain (those have no foreign key to wait).
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

/** A stopped run (PruneOptions.stop) says so; its counts are what it deleted and skipped until then. */
export type PruneResult = PruneCounts & { interrupted?: true };

/** Where a run stands. */
interface Walk {
  db: Database;
  ctx: BatchContext;
  options: PruneOptions;
  total: PruneCounts;
  /** Idle conversations with no turn in flight that another transaction held locked: tried once more at the end. */
  busy: string[];
}

function add(total: PruneCounts, batch: PruneCounts): void {
  for (const key of Object.keys(total) as (keyof PruneCounts)[]) total[key] += batch[key];
}

/**
 * Deletes conversations idle since `cutoff`, with their audit trail, history, LLM call log, turn requests and the
 * payload claims only they stored, and LLM call log rows older than `cutoff` that belong to no conversation. A
 * conversation with a turn in flight is kept, however old its rows, and counted in `skippedInFlight`; one another
 * transaction holds locked is tried again at the end of the run, and counted in `skippedBusy` if it still is.
 *
 * It walks the conversations last updated before the cutoff, a batch at a time, in (updated_at, conversation_id)
 * order (ce_conversation_updated_idx), carrying its place from batch to batch; the walk only moves forward, so each
 * is examined once, and a dry run walks the same way. It deletes what a dry run counts: one behind the cursor cannot
 * become prunable meanwhile, as its updated_at, audit rows and turn requests only grow newer.
 */
export async function pruneConversations(db: Database, cutoff: Date, options: PruneOptions = {}): Promise<PruneResult> {
  const batchSize = options.batchSize ?? 500;
  const rowsPerStatement = batchSize * ROWS_PER_CONVERSATION;
  const ctx: BatchContext = { cutoff, ended: [], dryRun: options.dryRun ?? false, rowsPerStatement };
  const walk: Walk = { db, ctx, options, total: countsOf(undefined), busy: [] };
  let after: Cursor | null = null;
  let examined = 0;
  for (;;) {
    if (options.stop?.aborted) return stopped(walk, 0);
    const { rows, counts } = await examine(db, { after, limit: batchSize }, ctx);
    add(walk.total, counts);
    const last = rows.at(-1);
    after = last ? { updatedAt: last.updated_at, conversationId: last.conversation_id } : after;
    await settle(walk, rows, after);
    examined += rows.length;
    options.onBatch?.({ counts: { ...walk.total }, examined });
    if (rows.length < batchSize) break;
  }
  const untried = await retryBusy(walk, batchSize);
  if (untried !== null) return stopped(walk, untried);
  const { total } = walk;
  const sweep = await sweepOrphanCalls(db, cutoff, {
    batchSize,
    dryRun: ctx.dryRun,
    stop: options.stop,
    tick: (orphans) => options.onBatch?.({ counts: { ...total, llmCalls: total.llmCalls + orphans }, examined }),
  });
  total.llmCalls += sweep.orphans;
  return sweep.interrupted ? { ...total, interrupted: true } : total;
}

/**
 * Tallies the conversations of a batch it did not take: busy ones wait for the end of the run; a turn in flight is
 * asked of Temporal, and the conversations whose turn it says has ended are examined again. A turn retried or reset
 * after it answers writes a turn request or audit rows first, so its conversation is no longer idle when that batch
 * reads it.
 */
async function settle(walk: Walk, rows: Candidate[], windowEnd: Cursor | null): Promise<void> {
  const ended: string[] = [];
  for (const row of rows) {
    if (!row.idle || row.picked) continue;
    if (row.in_flight_turn === null) walk.busy.push(row.conversation_id);
    else if (await turnHasEnded(walk.options, row.conversation_id, row.in_flight_turn)) {
      ended.push(row.conversation_id);
      walk.ctx.ended.push(`${row.conversation_id}/${row.in_flight_turn}`);
    } else walk.total.skippedInFlight += 1;
  }
  if (ended.length === 0) return;
  const again = await examine(walk.db, { ids: ended, windowEnd }, walk.ctx);
  add(walk.total, again.counts);
  tally(walk.total, again.rows, (id) => walk.busy.push(id));
}

async function turnHasEnded(options: PruneOptions, conversationId: string, turn: number): Promise<boolean> {
  if (!options.turnEnds) return false;
  return (await options.turnEnds(conversationId, turn).catch(() => null)) !== null;
}

/** Counts the idle conversations `rows` did not take: in flight, or `busy`. */
function tally(total: PruneCounts, rows: Candidate[], busy: (conversationId: string) => void): void {
  for (const row of rows) {
    if (!row.idle || row.picked) continue;
    if (row.in_flight_turn === null) busy(row.conversation_id);
    else total.skippedInFlight += 1;
  }
}

/**
 * A stopped run's result. The busy conversations from `from` on were not tried again: they are kept, and counted in
 * `skippedBusy` like those still held at the end of a whole run (a stopped run dropped them from its counts).
 */
function stopped(walk: Walk, from: number): PruneResult {
  return { ...walk.total, skippedBusy: walk.total.skippedBusy + walk.busy.length - from, interrupted: true };
}

/**
 * Tries the busy conversations once more, at the end of the run: a turn's transaction holds its conversation's row
 * only while it commits, so most are free again, or no longer idle. Those still held count in `skippedBusy`. When the
 * run is stopped first it says where in `walk.busy` it stopped (null: it tried them all).
 */
async function retryBusy(walk: Walk, batchSize: number): Promise<number | null> {
  for (let from = 0; from < walk.busy.length; from += batchSize) {
    if (walk.options.stop?.aborted) return from;
    const ids = walk.busy.slice(from, from + batchSize);
    const { rows, counts } = await examine(walk.db, { ids, windowEnd: null }, walk.ctx);
    add(walk.total, counts);
    tally(walk.total, rows, () => (walk.total.skippedBusy += 1));
  }
  return null;
}
