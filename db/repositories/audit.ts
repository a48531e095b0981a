import { and, asc, eq } from 'drizzle-orm';
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

/** Inserts audit rows in order; rows whose key already exists are skipped. Returns how many were new. */
export async function insertAudits(db: Database, rows: readonly AuditInsert[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db
    .insert(ceAudit)
    .values(
      rows.map((r) => ({
        conversationId: r.conversationId,
        turnNumber: r.turnNumber,
        stage: r.stage,
        payloadJson: r.payload,
        idempotencyKey: r.idempotencyKey,
        workflowId: r.workflowId,
      }))
    )
    .onConflictDoNothing({ target: ceAudit.idempotencyKey })
    .returning({ id: ceAudit.auditId });
  return inserted.length;
}

/** All audits of a conversation in the order they were written. */
export async function listAudits(db: Database, conversationId: string): Promise<StoredAudit[]> {
  const rows = await db
    .select()
    .from(ceAudit)
    .where(eq(ceAudit.conversationId, conversationId))
    .orderBy(asc(ceAudit.auditId));
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
