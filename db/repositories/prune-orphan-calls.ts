import type { Database } from '../pool';
import { CALLS, drain, drainSpan, ROWS_PER_CONVERSATION } from './prune-drain';

/**
 * The next `$2` call log rows of no conversation after `$3` in llm_call_id order (on the (conversation_id,
 * llm_call_id) index: only rows of no conversation are read), deleting (a dry run: counting) those older than `$1`.
 * It says how many rows it read, the last one's id (as text: a bigint) and whether all of them are older than the
 * cutoff.
 */
const unownedSpan = (dryRun: boolean) => `
  WITH next AS (
    SELECT l.llm_call_id, l.created_at FROM ce_llm_call_log l
     WHERE l.conversation_id IS NULL AND l.llm_call_id > $3::bigint ORDER BY l.llm_call_id LIMIT $2
  )${
    dryRun
      ? ''
      : `, gone AS (
    DELETE FROM ce_llm_call_log l USING next n WHERE l.llm_call_id = n.llm_call_id AND n.created_at < $1 RETURNING 1
  )`
  }
  SELECT count(*)::int AS examined, max(llm_call_id)::text AS last, coalesce(bool_and(created_at < $1), true) AS older,
         ${dryRun ? 'count(*) FILTER (WHERE created_at < $1)' : '(SELECT count(*) FROM gone)'}::int AS orphans
    FROM next`;

/**
 * The next `$2` conversations the call log names after `$3` (null: from the first), one index entry each (a skip scan
 * of the (conversation_id, llm_call_id) index: however many calls a conversation has, it costs one row), and those of
 * them ce_conversation no longer holds and whose first call is older than `$1` (`gone`). It says how many
 * conversations it read and the last one; a dry run counts the old calls of those gone (it only reads), a prune
 * deletes them afterwards, GONE_CALLS at a time.
 */
const gonePerSpan = (dryRun: boolean) => `
  WITH RECURSIVE named AS (
    (SELECT l.conversation_id FROM ce_llm_call_log l
      WHERE l.conversation_id > $3::uuid OR ($3::uuid IS NULL AND l.conversation_id IS NOT NULL)
      ORDER BY l.conversation_id LIMIT 1)
    UNION ALL
    SELECT (SELECT l.conversation_id FROM ce_llm_call_log l
             WHERE l.conversation_id > named.conversation_id ORDER BY l.conversation_id LIMIT 1)
      FROM named WHERE named.conversation_id IS NOT NULL
  ), span AS (
    SELECT conversation_id FROM named WHERE conversation_id IS NOT NULL LIMIT $2
  ), gone AS (
    SELECT s.conversation_id FROM span s
     WHERE NOT EXISTS (SELECT 1 FROM ce_conversation c WHERE c.conversation_id = s.conversation_id OFFSET 0)
       -- Its first call, one more index entry, is older than the cutoff: it has calls to delete.
       AND (SELECT l.created_at FROM ce_llm_call_log l
             WHERE l.conversation_id = s.conversation_id ORDER BY l.llm_call_id LIMIT 1) < $1
  )
  SELECT (SELECT count(*) FROM span)::int AS examined, true AS older,
         (SELECT conversation_id::text FROM span ORDER BY conversation_id DESC LIMIT 1) AS last,
         ARRAY(SELECT conversation_id::text FROM gone) AS gone,
         ${
           dryRun
             ? `(SELECT count(*) FROM ce_llm_call_log l
              -- ANY(ARRAY(…)): a probe of the index per gone conversation, not a hash of every old call.
              WHERE l.conversation_id = ANY (ARRAY(SELECT conversation_id FROM gone)) AND l.created_at < $1)`
             : '0'
         }::int AS orphans`;

/**
 * Deletes at most `$2` calls older than `$5` of the conversations of `$1` (uuid[], gone when their span read them;
 * checked again, so one created since keeps its calls), after the key (`$3`, `$4`) the statement before it deleted
 * last (prune-drain.ts). Bounded by rows, not conversations: one DELETE of every old call of a conversation of
 * millions was its locks and WAL at once.
 */
const GONE_CALLS = drainSpan(CALLS, {
  conversation: 'NOT EXISTS (SELECT 1 FROM ce_conversation v WHERE v.conversation_id = c OFFSET 0)',
  row: 't.created_at < $5',
});

/** What a statement of a walk says: the keys it read, the last, whether all were older, what it deleted (counted). */
interface Span {
  examined: number;
  last: string | null;
  older: boolean;
  orphans: number;
  /** The gone conversations of a span of GONE, whose old calls a prune deletes next. */
  gone?: string[];
}

/** One walk of the sweep: its statement (deleting, or counting) and where it starts. */
interface Walk {
  sweep: string;
  count: string;
  start: string | null;
}

const UNOWNED: Walk = { sweep: unownedSpan(false), count: unownedSpan(true), start: '0' };
const GONE: Walk = {
  sweep: gonePerSpan(false),
  count: gonePerSpan(true),
  // From the first id: a client may name a conversation by any UUID, the nil one included.
  start: null,
};

interface SweepOptions {
  batchSize: number;
  dryRun: boolean;
  stop?: AbortSignal;
  tick(orphans: number): void;
}

interface Swept {
  orphans: number;
  interrupted: boolean;
}

/**
 * Deletes (a dry run: counts) the call log rows older than `cutoff` that belong to no conversation (none names them:
 * no key cascades to them), in two walks of the (conversation_id, llm_call_id) index: the rows that name no
 * conversation, oldest first, up to the first newer one (a row's id and created_at are both taken as it is written);
 * then the conversations the log names, one index entry each, deleting the old calls of those that are gone. It read
 * every call log row older than the cutoff each run (100,000 rows of conversations still in use: 210-310 ms); it now
 * reads the rows it deletes and one entry per conversation. No statement deletes more than `batchSize` times
 * ROWS_PER_CONVERSATION rows. `tick` is told the rows deleted so far after each statement; once `stop` is aborted it
 * stops between statements, and the next run finds what is left: what it deletes is what is there.
 */
export async function sweepOrphanCalls(db: Database, cutoff: Date, options: SweepOptions): Promise<Swept> {
  let orphans = 0;
  for (const walk of [UNOWNED, GONE]) {
    const swept = await sweepWalk(db, cutoff, walk, options, orphans);
    orphans = swept.orphans;
    if (swept.interrupted) return swept;
  }
  return { orphans, interrupted: false };
}

async function sweepWalk(db: Database, cutoff: Date, walk: Walk, options: SweepOptions, before: number) {
  const span = options.batchSize * ROWS_PER_CONVERSATION;
  let after = walk.start;
  let orphans = before;
  for (;;) {
    if (options.stop?.aborted) return { orphans, interrupted: true };
    const { rows } = await db.$client.query<Span>(options.dryRun ? walk.count : walk.sweep, [cutoff, span, after]);
    const row = rows[0];
    orphans += row?.orphans ?? 0;
    options.tick(orphans);
    if (row?.gone?.length && !options.dryRun) {
      const swept = await deleteGoneCalls(db, cutoff, row.gone, span, { ...options, before: orphans });
      orphans = swept.orphans;
      if (swept.interrupted) return swept;
    }
    if (!row?.last || row.examined < span || !row.older) return { orphans, interrupted: false };
    after = row.last;
  }
}

/**
 * Deletes the old calls of the conversations `gone`, `limit` rows a statement, each statement after the key the one
 * before it deleted last, until a statement finds fewer. Stopped between them, the next run starts over: the span
 * walk finds the conversations again, their first calls still old.
 */
async function deleteGoneCalls(
  db: Database,
  cutoff: Date,
  gone: string[],
  limit: number,
  options: SweepOptions & { before: number }
): Promise<Swept> {
  const tick = (deleted: number) => options.tick(options.before + deleted);
  const drained = await drain(db.$client, GONE_CALLS, gone, { limit, params: [cutoff], tick, stop: options.stop });
  return { orphans: options.before + drained.deleted, interrupted: drained.stopped };
}
