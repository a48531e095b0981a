import type { Database } from '../pool';

/** How large the audit trail has grown, and how old its oldest conversation is (`convengine doctor`). */
export interface AuditTrailStats {
  /** ce_audit with its TOAST table and indexes. */
  bytes: number;
  /** The planner's estimate; exact for a table too small to have been analysed (null: not known yet). */
  rows: number | null;
  /** The longest a conversation has been idle (null: no conversation). */
  oldestIdleMs: number | null;
}

/** Below this an exact count is cheap enough to stand in for a missing estimate. */
const EXACT_COUNT_MAX_BYTES = 64 * 1024 * 1024;

export async function auditTrailStats(db: Database): Promise<AuditTrailStats> {
  const client = db.$client;
  const { rows } = await client.query<{ bytes: string; estimate: number; idle_ms: number | null }>(
    `SELECT pg_total_relation_size('ce_audit') AS bytes,
            (SELECT reltuples FROM pg_class WHERE oid = 'ce_audit'::regclass) AS estimate,
            (SELECT extract(epoch FROM now() - min(updated_at)) * 1000 FROM ce_conversation)::float8 AS idle_ms`
  );
  const bytes = Number(rows[0]?.bytes ?? 0);
  let count: number | null = (rows[0]?.estimate ?? -1) >= 0 ? Math.round(rows[0]?.estimate ?? 0) : null;
  if (count === null && bytes <= EXACT_COUNT_MAX_BYTES) {
    count = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM ce_audit')).rows[0]?.n ?? 0);
  }
  return {
    bytes,
    rows: count,
    oldestIdleMs: rows[0]?.idle_ms ?? null,
  };
}
