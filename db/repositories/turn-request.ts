import { and, eq } from 'drizzle-orm';
import type { Database } from '../pool';
import { ceTurnRequest } from '../schema';

export interface TurnClaim {
  conversationId: string;
  idempotencyKey: string;
  turnNumber: number;
  workflowId: string;
  /** Fingerprint of the request body the key was claimed with; null when unknown. */
  requestHash: string | null;
}

/** The claim an idempotency key made, in whichever conversation: a key names one request across the API. */
export async function findTurnClaim(db: Database, key: string): Promise<TurnClaim | null> {
  const [row] = await db.select().from(ceTurnRequest).where(eq(ceTurnRequest.idempotencyKey, key));
  return row
    ? {
        conversationId: row.conversationId,
        idempotencyKey: row.idempotencyKey,
        turnNumber: row.turnNumber,
        workflowId: row.workflowId,
        requestHash: row.requestHash ?? null,
      }
    : null;
}

/**
 * Claims an idempotency key for a turn before its workflow starts, so a gateway that crashes
 * between the two still finds (and finishes) the same turn when the client retries.
 * Returns false when another request already holds the key, in this conversation or another.
 */
export async function claimTurn(db: Database, claim: TurnClaim): Promise<boolean> {
  const inserted = await db
    .insert(ceTurnRequest)
    .values(claim)
    .onConflictDoNothing()
    .returning({ key: ceTurnRequest.idempotencyKey });
  return inserted.length > 0;
}

export async function releaseTurnClaim(db: Database, conversationId: string, key: string): Promise<void> {
  await db
    .delete(ceTurnRequest)
    .where(and(eq(ceTurnRequest.conversationId, conversationId), eq(ceTurnRequest.idempotencyKey, key)));
}
