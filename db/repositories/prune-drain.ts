import type { Database } from '../pool';

/**
 * Rows a statement of a prune reads or deletes, per conversation a batch examines: the most rows (call log rows, or
 * conversations the log names) a statement of the orphan sweep reads, and the most rows any statement deletes.
 */
export const ROWS_PER_CONVERSATION = 4;

/** A table whose rows name a conversation, deleted a span at a time on its (conversation_id, `key`) index. */
export interface DrainedTable {
  table: string;
  key: string;
  /** The key's SQL type, and a value no key is below (the first conversation's span starts there). */
  type: string;
  lowest: string;
}

export const AUDIT: DrainedTable = { table: 'ce_audit', key: 'audit_id', type: 'bigint', lowest: '0' };
export const HISTORY: DrainedTable = {
  table: 'ce_conversation_history',
  key: 'turn_number',
  type: 'integer',
  lowest: '(-2147483648)::integer',
};
export const REQUESTS: DrainedTable = {
  table: 'ce_turn_request',
  key: 'idempotency_key',
  type: 'text',
  lowest: `''`,
};
export const CALLS: DrainedTable = { table: 'ce_llm_call_log', key: 'llm_call_id', type: 'bigint', lowest: '0' };

/** What else a span keeps to: conversations of `$1` still to drain, rows to delete (both may use `$5` on). */
export interface DrainFilter {
  conversation?: string;
  row?: string;
}

/**
 * Deletes at most `$2` rows of the conversations of `$1` (uuid[]), in (conversation_id, key) order from the key
 * (`$3`, `$4`) the statement before it deleted last (null: from the first), and says how many it picked and deleted
 * and the last key. Each conversation's rows are one range of the index from that key (a nested loop over the sorted
 * conversations), the first `$2` of them in that order picked by an explicit sort, which the conversations' order
 * lets run a conversation at a time and stop at the LIMIT (Incremental Sort): the keyset holds whatever plan is
 * chosen, where taking the nested loop's first rows relied on it returning them in order. From the last key itself
 * (`>=`, so a text key needs no value below it): that row is gone. Scanning each conversation from its start instead, a
 * statement walked past the entries of every row deleted before it (in the same transaction, or while an older
 * snapshot can still see them), k times `$2` of them for the k-th statement. The rows go by ctid, found in the same
 * snapshot: one a concurrent update moved is skipped, not another's deleted.
 */
export function drainSpan({ table, key, type, lowest }: DrainedTable, filter: DrainFilter = {}): string {
  return `
  WITH picked AS MATERIALIZED (
    SELECT g.conversation_id, d.key, d.ctid
      FROM (SELECT c AS conversation_id FROM unnest($1::uuid[]) c
             WHERE ($3::uuid IS NULL OR c >= $3::uuid) ${filter.conversation ? `AND ${filter.conversation}` : ''}
             ORDER BY c) g
     CROSS JOIN LATERAL (
       -- A range of the (conversation_id, key) index, not conversation_id = …, which orders by the key alone: a
       -- primary key on it serves that too, filtering every row of the table after the key.
       SELECT t.${key} AS key, t.ctid FROM ${table} t
        WHERE (t.conversation_id, t.${key})
              >= (g.conversation_id, CASE WHEN g.conversation_id = $3::uuid THEN $4::${type} ELSE ${lowest} END)
          AND t.conversation_id <= g.conversation_id ${filter.row ? `AND ${filter.row}` : ''}
        ORDER BY t.conversation_id, t.${key} LIMIT $2) d
     ORDER BY g.conversation_id, d.key
     LIMIT $2
  ), gone AS (
    DELETE FROM ${table} t WHERE t.ctid = ANY (ARRAY(SELECT ctid FROM picked)) RETURNING 1
  ), last AS (
    SELECT conversation_id, key FROM picked ORDER BY conversation_id DESC, key DESC LIMIT 1
  )
  SELECT (SELECT count(*) FROM picked)::int AS picked, (SELECT count(*) FROM gone)::int AS deleted,
         (SELECT conversation_id::text FROM last) AS conversation, (SELECT key::text FROM last) AS after`;
}

/** What a statement of drainSpan says: the rows it picked and deleted, and the key of the last one (as text). */
interface Drained {
  picked: number;
  deleted: number;
  conversation: string | null;
  after: string | null;
}

type Query = Pick<Database['$client'], 'query'>;

export interface DrainOptions {
  /** The most rows a statement deletes. */
  limit: number;
  /** Parameters from `$5` on, for the filter. */
  params?: unknown[];
  /** Told the rows deleted after each statement. */
  tick?: (deleted: number) => void;
  /**
   * Stops the drain before its next statement. A statement that picked fewer than `limit` rows ends it unstopped; one
   * that picked exactly `limit` cannot tell it was the last, so a stop then says stopped with nothing left.
   */
  stop?: AbortSignal;
}

/**
 * Runs `statement` (a drainSpan) on the conversations `ids` until one picks fewer than `limit` rows, each from the
 * key the one before it deleted last, and says how many rows they deleted and whether `stop` stopped them.
 */
export async function drain(db: Query, statement: string, ids: string[], options: DrainOptions) {
  let deleted = 0;
  let last: Pick<Drained, 'conversation' | 'after'> = { conversation: null, after: null };
  for (;;) {
    if (options.stop?.aborted) return { deleted, stopped: true };
    const params = [ids, options.limit, last.conversation, last.after, ...(options.params ?? [])];
    const row = (await db.query<Drained>(statement, params)).rows[0];
    deleted += row?.deleted ?? 0;
    options.tick?.(deleted);
    if (!row || row.picked < options.limit) return { deleted, stopped: false };
    last = row;
  }
}
