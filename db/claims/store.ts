import { inArray, lt } from 'drizzle-orm';
import { retryOnConnectionLoss } from '../connection-loss';
import type { Database } from '../pool';
import { cePayloadClaim } from '../schema';

export interface ClaimBody {
  hash: string;
  body: Uint8Array;
}

/**
 * Where claim-checked payload bodies live: content-addressed, written once, read by hash. Both are
 * safe to send twice, so a lost connection sends them again (db/connection-loss.ts): the codec runs
 * as an activity completes, and its failure would cost the activity an attempt.
 */
export interface ClaimStore {
  /**
   * Stores each body under its hash in one round trip; a body stored again is only marked referenced now. With
   * `conversationId`, the bodies are recorded as that conversation's, for its prune or erase to delete.
   */
  putMany(bodies: readonly ClaimBody[], conversationId?: string): Promise<void>;
  /** The bodies stored under these hashes (missing ones are absent from the map), in one round trip. */
  getMany(hashes: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** Deletes the claims last referenced before `cutoff`; returns how many and their bytes. */
  prune(cutoff: Date): Promise<{ claims: number; bytes: number }>;
}

const STORE = `INSERT INTO ce_payload_claim (claim_hash, body, size_bytes)
  SELECT * FROM unnest($1::text[], $2::bytea[], $3::int[])
  ON CONFLICT (claim_hash) DO UPDATE SET last_referenced_at = now()`;
const STORE_CLAIMS = STORE;
/** The claims and their owner in one statement: the link's foreign key is checked at its end, the claim stored. */
const STORE_CONVERSATION_CLAIMS = `WITH stored AS (${STORE} RETURNING claim_hash)
  INSERT INTO ce_payload_claim_conversation (conversation_id, claim_hash)
  SELECT $4::uuid, claim_hash FROM stored ON CONFLICT DO NOTHING`;

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export function createClaimStore(db: Database): ClaimStore {
  return {
    async putMany(bodies, conversationId) {
      // One row per hash: ON CONFLICT cannot touch the same row twice in one statement. In hash order, as an erase or
      // prune locks them (LOCK_CLAIMS_OF), so the two never wait for each other in a circle.
      const unique = [...new Map(bodies.map((b) => [b.hash, b])).values()].sort((x, y) => (x.hash < y.hash ? -1 : 1));
      if (unique.length === 0) return;
      const values = [
        unique.map((b) => b.hash),
        unique.map((b) => asBuffer(b.body)),
        unique.map((b) => b.body.byteLength),
      ];
      await retryOnConnectionLoss(() =>
        conversationId === undefined
          ? db.$client.query(STORE_CLAIMS, values)
          : db.$client.query(STORE_CONVERSATION_CLAIMS, [...values, conversationId])
      );
    },
    async getMany(hashes) {
      if (hashes.length === 0) return new Map();
      const rows = await retryOnConnectionLoss(() =>
        db
          .select({ hash: cePayloadClaim.claimHash, body: cePayloadClaim.body })
          .from(cePayloadClaim)
          .where(inArray(cePayloadClaim.claimHash, [...new Set(hashes)]))
      );
      return new Map(rows.map((r) => [r.hash, new Uint8Array(r.body.buffer, r.body.byteOffset, r.body.byteLength)]));
    },
    async prune(cutoff) {
      const deleted = await db
        .delete(cePayloadClaim)
        .where(lt(cePayloadClaim.lastReferencedAt, cutoff))
        .returning({ sizeBytes: cePayloadClaim.sizeBytes });
      return { claims: deleted.length, bytes: deleted.reduce((sum, r) => sum + r.sizeBytes, 0) };
    },
  };
}
