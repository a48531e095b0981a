import { randomUUID } from 'node:crypto';
import { eraseConversationRows } from '../../db/repositories/erasure';
import { createClaimStore } from '../../db/claims/store';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * A claim body stored by content (no PAYLOAD_ENCRYPTION_KEYS: the same bytes, the same hash, one row) that an erased
 * conversation stored, while another conversation's turn stores the same bytes: the body stays for that one.
 */
describe('erasing a conversation while another stores the same claim body', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb.drop());

  const hash = 'a'.repeat(64);
  const body = new TextEncoder().encode('the same large tool catalogue '.repeat(200));

  it("keeps the body and the other conversation's link when that store commits while the erase waits", async () => {
    const [erased, other] = [randomUUID(), randomUUID()];
    await createClaimStore(tdb.db).putMany([{ hash, body }], erased);
    // The other turn's store (db/claims/store.ts) has run its statement and not committed yet.
    const storing = await tdb.db.$client.connect();
    await storing.query('BEGIN');
    await storing.query(
      `WITH stored AS (INSERT INTO ce_payload_claim (claim_hash, body, size_bytes) VALUES ($1, $2, $3)
                       ON CONFLICT (claim_hash) DO UPDATE SET last_referenced_at = now() RETURNING claim_hash)
       INSERT INTO ce_payload_claim_conversation (conversation_id, claim_hash) SELECT $4, claim_hash FROM stored`,
      [hash, Buffer.from(body), body.byteLength, other]
    );
    const erasing = eraseConversationRows(tdb.db, erased, { ended: null, erasedBy: 'test' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await storing.query('COMMIT');
    storing.release();
    expect(await erasing).toMatchObject({ claims: 0 });

    const links = await tdb.db.$client.query(
      'SELECT conversation_id FROM ce_payload_claim_conversation WHERE claim_hash = $1',
      [hash]
    );
    expect(links.rows).toEqual([{ conversation_id: other }]);
    expect((await createClaimStore(tdb.db).getMany([hash])).get(hash)).toEqual(body);
  });
});
