import type { Database } from '../pool';
import { ORPHAN_CALLS } from './prune-sql';

/**
 * The sweep's next `$2` call log rows after `$3` in llm_call_id order (the primary key), deleting (a dry run:
 * counting) those older than `$1` whose conversation is gone. It says how many rows it read, the last one's id (as
 * text: a bigint) and whether any of them is older than the cutoff.
 */
const sweep = (dryRun: boolean) => `
  WITH next AS (
    SELECT l.llm_call_id, l.created_at, l.conversation_id
      FROM ce_llm_call_log l WHERE l.llm_call_id > $3::bigint ORDER BY l.llm_call_id LIMIT $2
  ), span AS (
    SELECT l.llm_call_id, l.created_at, ${ORPHAN_CALLS} AS orphan FROM next l
  )${
    dryRun
      ? ''
      : `, gone AS (
    DELETE FROM ce_llm_call_log l USING span s WHERE l.llm_call_id = s.llm_call_id AND s.orphan RETURNING 1
  )`
  }
  SELECT count(*)::int AS examined, max(llm_call_id)::text AS last, coalesce(bool_or(created_at < $1), false) AS older,
         ${dryRun ? 'count(*) FILTER (WHERE orphan)' : '(SELECT count(*) FROM gone)'}::int AS orphans
    FROM span`;
const SWEEP = sweep(false);
const COUNT = sweep(true);

/** Rows a statement of the sweep reads, per conversation a batch of the walk examines. */
const ROWS_PER_CONVERSATION = 4;

/**
 * Deletes (a dry run: counts) the call log rows older than `cutoff` that belong to no conversation (none names them:
 * no key cascades to them), walking the log once from its oldest row, a span at a time, and stopping at the first
 * span with no row older than the cutoff. A row's id and its created_at are both taken as it is written, so the rows
 * past that span are newer: the sweep reads about what is older than the cutoff, never the newer rest of the log.
 * It picked its rows anew each batch, reading again from the start of the table every row the batches before had
 * kept. `tick` is told the rows deleted so far after each span; once `stop` is aborted it stops between spans.
 */
export async function sweepOrphanCalls(
  db: Database,
  cutoff: Date,
  options: { batchSize: number; dryRun: boolean; stop?: AbortSignal; tick(orphans: number): void }
): Promise<{ orphans: number; interrupted: boolean }> {
  const span = options.batchSize * ROWS_PER_CONVERSATION;
  let after = '0';
  let orphans = 0;
  for (;;) {
    if (options.stop?.aborted) return { orphans, interrupted: true };
    const { rows } = await db.$client.query<{ examined: number; last: string | null; older: boolean; orphans: number }>(
      options.dryRun ? COUNT : SWEEP,
      [cutoff, span, after]
    );
    const row = rows[0];
    orphans += row?.orphans ?? 0;
    options.tick(orphans);
    if (!row?.last || row.examined < span || !row.older) return { orphans, interrupted: false };
    after = row.last;
  }
}
