import { and, asc, eq, gt } from 'drizzle-orm';
import type { JsonObject } from '../../core/json';
import type { Database } from '../pool';
import { ceAudit } from '../schema';

export interface AuditInsert {
  conversationId: string;
  turnNumber: number;
  stage: string;
  payload: JsonObject;
  /** `<turn id>/<call key>/<index>`: a retried activity re-inserts the same keys. */
  idempotencyKey: string;
  workflowId: string | null;
}

export interface StoredAudit {
  auditId: number;
  conversationId: string;
  turnNumber: number | null;
  stage: string;
  payload: JsonObject;
  idempotencyKey: string;
  createdAt: Date;
}

export interface AuditWriteOptions {
  /**
   * Key prefix (`<turn id>/<call key>/`) owned by this write: rows under it that this write does
   * not carry are left over from an earlier attempt of the same activity and are removed, so the
   * table holds exactly what the attempt recorded in history returned. Per-attempt STEP_ERROR rows
   * (`…/error-<n>`) are kept as the record of the failed attempts.
   */
  replaceUnder?: string;
}

/**
 * Writes audit rows idempotently, in order: a retried activity re-writes the same keys (the last
 * attempt's content wins, keeping the original row ids and order) and never adds duplicates.
 */
export async function insertAudits(
  db: Database,
  rows: readonly AuditInsert[],
  options: AuditWriteOptions = {}
): Promise<void> {
  await writeAuditBatch(db, [{ rows, replaceUnder: options.replaceUnder ?? null }]);
}

/**
 * Audits of a conversation in the order they were written; `afterAuditId` and `limit` page through
 * a long trail (the API and the SSE stream read it that way).
 */
export async function listAudits(
  db: Database,
  conversationId: string,
  page: { afterAuditId?: number; limit?: number } = {}
): Promise<StoredAudit[]> {
  const query = db
    .select()
    .from(ceAudit)
    .where(and(eq(ceAudit.conversationId, conversationId), gt(ceAudit.auditId, page.afterAuditId ?? 0)))
    .orderBy(asc(ceAudit.auditId));
  const rows = await (page.limit ? query.limit(page.limit) : query);
  return rows.map((r) => ({
    auditId: r.auditId,
    conversationId: r.conversationId,
    turnNumber: r.turnNumber,
    stage: r.stage,
    payload: r.payloadJson as JsonObject,
    idempotencyKey: r.idempotencyKey,
    createdAt: r.createdAt,
  }));
}

/** `step → durationMs` from the STEP_EXIT rows of one turn (PIPELINE_TIMING). */
export async function stepDurations(
  db: Database,
  conversationId: string,
  turnNumber: number
): Promise<Record<string, number>> {
  const rows = await db
    .select({ payload: ceAudit.payloadJson })
    .from(ceAudit)
    .where(
      and(
        eq(ceAudit.conversationId, conversationId),
        eq(ceAudit.turnNumber, turnNumber),
        eq(ceAudit.stage, 'STEP_EXIT')
      )
    )
    .orderBy(asc(ceAudit.auditId));
  const out: Record<string, number> = {};
  for (const { payload } of rows) {
    const p = payload as Record<string, unknown>;
    if (typeof p['step'] === 'string' && typeof p['durationMs'] === 'number')
      out[p['step']] = (out[p['step']] ?? 0) + p['durationMs'];
  }
  return out;
}

/** Rows of one audit key segment; `replace` says the write owns the segment (see AuditWriteOptions). */
export interface AuditGroup {
  rows: readonly AuditInsert[];
  /** Key prefix owned by this group, or null when it only adds (per-attempt error rows). */
  replaceUnder: string | null;
}

/**
 * Writes audit groups in ONE round trip (a single statement, so also atomic), as a named prepared
 * statement: upsert by idempotency key in order, then drop rows an earlier attempt left under the
 * owned prefixes, found through their indexed key prefix (migration 0014).
 */
const WRITE_AUDIT_BATCH = {
  name: 'ce_audit_write_batch_v2',
  text: `WITH batch AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb)
      AS r(ord int, conversation_id uuid, turn_number int, stage text, payload_json jsonb, idempotency_key text, workflow_id text)
  ), written AS (
    INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, workflow_id)
    SELECT conversation_id, turn_number, stage, payload_json, idempotency_key, workflow_id FROM batch ORDER BY ord
    ON CONFLICT (idempotency_key) DO UPDATE SET stage = excluded.stage, payload_json = excluded.payload_json
  )
  DELETE FROM ce_audit a
   WHERE a.key_prefix = ANY ($2::text[])
     AND NOT starts_with(a.idempotency_key, a.key_prefix || 'error-')
     AND a.idempotency_key <> ALL (SELECT idempotency_key FROM batch)`,
};

export async function writeAuditBatch(db: Database, groups: readonly AuditGroup[]): Promise<void> {
  const rows = groups.flatMap((g) => g.rows);
  if (rows.length === 0) return;
  const batch = rows.map((r, ord) => ({
    ord,
    conversation_id: r.conversationId,
    turn_number: r.turnNumber,
    stage: r.stage,
    payload_json: r.payload,
    idempotency_key: r.idempotencyKey,
    workflow_id: r.workflowId,
  }));
  const prefixes = groups.flatMap((g) => (g.replaceUnder ? [g.replaceUnder] : []));
  await db.$client.query({ ...WRITE_AUDIT_BATCH, values: [JSON.stringify(batch), prefixes] });
}
