import type { AuditPageBounds } from '../../core/audit';
import type { Database } from '../pool';
import { runStatement, type Statement } from '../statements';
import { storedAudit, type AuditRow, type StoredAudit } from './audit';

export interface AuditBytePage {
  rows: StoredAudit[];
  /** The payload bytes of `rows`. */
  bytes: number;
  /** The row after `rows` would have taken the page past `maxBytes`: it was measured, not loaded. */
  full: boolean;
}

/**
 * A page measured before it is loaded: each row's payload size as JSON text and their running sum are computed in
 * the database, which sends the payloads that fit and, of the first row that does not, only its id and size. The
 * window runs over at most `limit` rows (one index range), so a trail of any size costs one bounded statement.
 */
const AUDITS_WITHIN: Statement = {
  name: 'ce_audit_within_bytes_v1',
  resendable: true,
  text: `SELECT a.audit_id, a.conversation_id, a.turn_number, a.stage, a.idempotency_key, a.run_id, a.created_at,
                a.bytes, a.loaded, CASE WHEN a.loaded THEN a.payload_json END AS payload_json
           FROM (SELECT b.*, b.running <= $4 OR (b.n = 1 AND $5) AS loaded
                   FROM (SELECT x.*, s.bytes, sum(s.bytes) OVER w AS running, row_number() OVER w AS n
                           FROM ce_audit x CROSS JOIN LATERAL (SELECT octet_length(x.payload_json::text) AS bytes) s
                          WHERE x.conversation_id = $1 AND x.audit_id > $2
                         WINDOW w AS (ORDER BY x.audit_id)
                          ORDER BY x.audit_id LIMIT $3) b) a
          WHERE a.n = 1 OR a.running - a.bytes <= $4 OR (a.n = 2 AND $5)
          ORDER BY a.audit_id`,
};

interface MeasuredAuditRow extends AuditRow {
  bytes: string | number;
  loaded: boolean;
}

/** One conversation's rows after a cursor, bounded by rows and by payload bytes (API pages and traces). */
export async function listAuditsWithin(
  db: Database,
  conversationId: string,
  bounds: AuditPageBounds
): Promise<AuditBytePage> {
  const { afterAuditId, limit, maxBytes, takeFirst } = bounds;
  const measured = await runStatement<MeasuredAuditRow>(db, AUDITS_WITHIN, [
    conversationId,
    afterAuditId,
    limit,
    maxBytes,
    takeFirst,
  ]);
  const loaded = measured.filter((r) => r.loaded);
  return {
    rows: loaded.map(storedAudit),
    bytes: loaded.reduce((sum, r) => sum + Number(r.bytes), 0),
    full: loaded.length < measured.length,
  };
}
