import { and, asc, eq, gt } from 'drizzle-orm';
import { AuditStage } from '../../core/audit/payloads';
import type { JsonObject } from '../../core/json';
import { storableJson } from '../../core/text/storable-output';
import { timingsByStep } from '../../core/turn/protocol';
import { cancellableQuery } from '../cancellation';
import { retryOnConnectionLoss } from '../connection-loss';
import type { Database } from '../pool';
import { ceAudit } from '../schema';
import { runStatement, type Statement } from '../statements';

export interface AuditInsert {
  conversationId: string;
  turnNumber: number;
  stage: string;
  payload: JsonObject;
  /** When set, the stored payload is `{ ...payload, _meta: { ...meta.own, ...meta.shared } }`. */
  meta?: AuditMeta;
  /**
   * `<turn id>@<run id>/<call key>/<index>` (`<turn id>/…` without a run): an activity retried within its run
   * re-inserts the same keys; another run of the turn writes keys of its own (activities/runtime/audit-writer.ts).
   */
  idempotencyKey: string;
  workflowId: string | null;
  /** The Temporal run writing the row, also in its key (null in process and for an operator's action). */
  runId: string | null;
}

/**
 * The `_meta` of a stored payload in two parts: the row's own fields and the fields it shares with
 * the other rows of its write (the session's params and context: most of a row's bytes). Rows that
 * hold the same `shared` object send it once per statement and the database lays it over each row.
 */
export interface AuditMeta {
  own: JsonObject;
  shared: JsonObject;
}

export interface StoredAudit {
  auditId: number;
  conversationId: string;
  turnNumber: number | null;
  stage: string;
  payload: JsonObject;
  idempotencyKey: string;
  /** The Temporal run that wrote the row; null in process, for an operator's action and before migration 0016. */
  runId: string | null;
  createdAt: Date;
}

export interface AuditWriteOptions {
  /**
   * Key prefix (`<turn id>@<run id>/<call key>/`) owned by this write: rows under it that this write does
   * not carry are left over from an earlier attempt of the same activity in the same run and are removed, so the
   * table holds exactly what the attempt recorded in history returned. Per-attempt STEP_ERROR rows
   * (`…/error-<n>`) are kept as the record of the failed attempts.
   */
  replaceUnder?: string;
}

/**
 * Writes audit rows idempotently, in order: an activity retried within its run re-writes the same keys (the
 * last attempt's content wins, keeping the original row ids and order) and never adds duplicates.
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
    runId: r.runId,
    createdAt: r.createdAt,
  }));
}

/** A ce_audit row as a raw statement returns it. */
export interface AuditRow {
  audit_id: string | number;
  conversation_id: string;
  turn_number: number | null;
  stage: string;
  payload_json: JsonObject;
  idempotency_key: string;
  run_id: string | null;
  created_at: Date;
}

export const storedAudit = (r: AuditRow): StoredAudit => ({
  auditId: Number(r.audit_id),
  conversationId: r.conversation_id,
  turnNumber: r.turn_number,
  stage: r.stage,
  payload: r.payload_json,
  idempotencyKey: r.idempotency_key,
  runId: r.run_id,
  createdAt: r.created_at,
});

/** Only the two fields read: the whole payload carries the session's `_meta`, kilobytes per row. */
const STEP_DURATIONS: Statement = {
  name: 'ce_audit_step_durations_v2',
  resendable: true,
  text: `SELECT payload_json -> 'step' AS step, payload_json -> 'durationMs' AS duration_ms FROM ce_audit
          WHERE conversation_id = $1 AND turn_number = $2 AND run_id IS NOT DISTINCT FROM $3 AND stage = 'STEP_EXIT'
          ORDER BY audit_id`,
};

/**
 * `step → durationMs` from the STEP_EXIT rows one run of a turn wrote (PIPELINE_TIMING): an earlier, failed
 * run's rows stay beside them, and its steps' time is not this run's.
 */
export async function stepDurations(
  db: Database,
  conversationId: string,
  turnNumber: number,
  runId: string | null
): Promise<Record<string, number>> {
  const rows = await runStatement<{ step: unknown; duration_ms: unknown }>(db, STEP_DURATIONS, [
    conversationId,
    turnNumber,
    runId,
  ]);
  return timingsByStep(
    rows.flatMap(({ step, duration_ms: durationMs }) =>
      typeof step === 'string' && typeof durationMs === 'number' ? [{ step, durationMs }] : []
    )
  );
}

/** On the (conversation_id, audit_id) index: a turn's rows are among its conversation's last ones. */
const TURN_FAILURE_WRITTEN: Statement = {
  name: 'ce_audit_turn_failure_written_v1',
  resendable: true,
  text: `SELECT 1 FROM ce_audit
          WHERE conversation_id = $1 AND turn_number = $2 AND run_id IS NOT DISTINCT FROM $3
            AND stage = ANY ($4::text[])
          LIMIT 1`,
};

/** Whether one run of a turn already wrote the turn's failure row (activities/step-runtime.ts writes it). */
export async function turnFailureWritten(
  db: Database,
  conversationId: string,
  turnNumber: number,
  runId: string | null
): Promise<boolean> {
  const stages = [AuditStage.EngineKnownFailure, AuditStage.EngineUnknownFailure];
  const rows = await runStatement(db, TURN_FAILURE_WRITTEN, [conversationId, turnNumber, runId, stages]);
  return rows.length > 0;
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
 * owned prefixes, found through their indexed key prefix (migration 0014). Keys and prefixes name
 * the run (auditKeyRoot), so neither reaches another run's rows. A row's `_meta` is
 * assembled here from its own part and its shared part ($3, by index), as jsonb: the stored value
 * is the same as sending the whole payload, but the shared part travels and is parsed only once.
 * It answers the keys of the rows of the stages in $4 that it inserted rather than rewrote (an
 * upserted row's xmax is 0 only when inserted): the first write of a row, whatever retries follow.
 * Fenced: when a row keyed in $5 exists (a run's last row, the TURN_CANCELLED or failure row its workflow wrote), it
 * writes and deletes nothing and answers one row with a null key instead. One probe of the key's unique index, in the
 * same statement, so a turn that ends well pays no round trip for it.
 */
const WRITE_AUDIT_BATCH = {
  name: 'ce_audit_write_batch_v6',
  text: `WITH fence AS (
    SELECT EXISTS (SELECT 1 FROM ce_audit WHERE idempotency_key = ANY ($5::text[])) AS ended
  ), batch AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb)
      AS r(ord int, conversation_id uuid, turn_number int, stage text, payload_json jsonb, meta jsonb, shared int,
           idempotency_key text, workflow_id text, run_id text)
     WHERE NOT (SELECT ended FROM fence)
  ), written AS (
    INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, workflow_id, run_id)
    SELECT conversation_id, turn_number, stage,
           CASE WHEN meta IS NULL THEN payload_json
                ELSE payload_json || jsonb_build_object('_meta', meta || ($3::jsonb -> shared)) END,
           idempotency_key, workflow_id, run_id
      FROM batch ORDER BY ord
    ON CONFLICT (idempotency_key) DO UPDATE
      SET stage = excluded.stage, payload_json = excluded.payload_json, run_id = excluded.run_id
    RETURNING idempotency_key, stage, xmax = 0 AS inserted
  ), leftovers AS (
    DELETE FROM ce_audit a
     WHERE NOT (SELECT ended FROM fence)
       AND a.key_prefix = ANY ($2::text[])
       AND NOT starts_with(a.idempotency_key, a.key_prefix || 'error-')
       AND a.idempotency_key <> ALL (SELECT idempotency_key FROM batch)
  )
  SELECT idempotency_key FROM written WHERE inserted AND stage = ANY ($4::text[])
  UNION ALL
  SELECT NULL FROM fence WHERE ended`,
};

/** What a batch write did: refused whole because its run had ended (`fenced`), or the keys it stored first. */
export interface AuditBatchOutcome {
  fenced: boolean;
  firstStored: string[];
}

/**
 * Writes the groups (WRITE_AUDIT_BATCH) and answers the keys of the rows of `firstStoredOf`'s stages
 * that this write stored for the first time: a retry that rewrites a row does not answer it again.
 * Nothing is written when a row keyed in `fencedBy` exists (`fenced`).
 */
export async function writeAuditBatch(
  db: Database,
  groups: readonly AuditGroup[],
  firstStoredOf: readonly string[] = [],
  fencedBy: readonly string[] = []
): Promise<AuditBatchOutcome> {
  const rows = groups.flatMap((g) => g.rows);
  if (rows.length === 0) return { fenced: false, firstStored: [] };
  const shared: JsonObject[] = [];
  const sharedIndex = new Map<JsonObject, number>();
  const indexOf = (part: JsonObject): number => {
    let index = sharedIndex.get(part);
    if (index === undefined) {
      index = shared.push(part) - 1;
      sharedIndex.set(part, index);
    }
    return index;
  };
  const batch = rows.map((r, ord) => ({
    ord,
    conversation_id: r.conversationId,
    turn_number: r.turnNumber,
    stage: r.stage,
    payload_json: r.payload,
    // Undefined without meta: left out of the JSON, so the row is stored as given.
    meta: r.meta?.own,
    shared: r.meta ? indexOf(r.meta.shared) : undefined,
    idempotency_key: r.idempotencyKey,
    workflow_id: r.workflowId,
    run_id: r.runId,
  }));
  const prefixes = groups.flatMap((g) => (g.replaceUnder ? [g.replaceUnder] : []));
  // storableJson: a lone surrogate or a NUL in any row would otherwise make PostgreSQL refuse the whole batch.
  const values = [storableJson(batch), prefixes, storableJson(shared), firstStoredOf, fencedBy];
  // Not runStatement: its error quotes the parameters, and this batch carries the session's context
  // into a failure that Temporal would keep in history. Keyed, so resent when its connection was lost.
  const result = await retryOnConnectionLoss(() =>
    cancellableQuery<{ idempotency_key: string | null }>(db.$client, { ...WRITE_AUDIT_BATCH, values })
  );
  const keys = result.rows.map((r) => r.idempotency_key);
  if (keys.includes(null)) return { fenced: true, firstStored: [] };
  return { fenced: false, firstStored: keys as string[] };
}
