import type { AuditCursor, AuditCursorShare, AuditPageBounds } from '../../core/audit';
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

/**
 * Each cursor's conversation's rows after it, on the (conversation_id, audit_id) index, measured as AUDITS_WITHIN
 * measures them: at most `$3` rows and `$4` payload bytes per cursor (the first row whatever its size). The rows sent
 * are a prefix of each trail, so a stream's cursor is the last row it was handed and it resumes exactly there.
 */
const AUDITS_AFTER: Statement = {
  name: 'ce_audit_after_cursors_bytes_v1',
  resendable: true,
  text: `SELECT a.audit_id, a.conversation_id, a.turn_number, a.stage, a.payload_json, a.idempotency_key, a.run_id,
                a.created_at
           FROM unnest($1::uuid[], $2::bigint[]) AS c(conversation_id, after_id)
          CROSS JOIN LATERAL (
                SELECT m.* FROM (
                       SELECT x.*, sum(octet_length(x.payload_json::text)) OVER w AS running,
                              row_number() OVER w AS n
                         FROM ce_audit x
                        WHERE x.conversation_id = c.conversation_id AND x.audit_id > c.after_id
                       WINDOW w AS (ORDER BY x.audit_id)
                        ORDER BY x.audit_id LIMIT $3) m
                 WHERE m.n = 1 OR m.running <= $4::bigint) a
          ORDER BY a.conversation_id, a.audit_id`,
};

/**
 * The rows after several cursors in one round trip, oldest first per conversation, each cursor's bounded by `share`:
 * the audit streams of an API process read together (api/audit-feed.ts), not one query per open stream, and a few
 * huge rows do not make one read carry many MiB.
 */
export async function listAuditsAfter(
  db: Database,
  cursors: readonly AuditCursor[],
  share: AuditCursorShare
): Promise<StoredAudit[]> {
  if (cursors.length === 0) return [];
  const values = [cursors.map((c) => c.conversationId), cursors.map((c) => c.afterAuditId), share.rows, share.maxBytes];
  return (await runStatement<AuditRow>(db, AUDITS_AFTER, values)).map(storedAudit);
}
