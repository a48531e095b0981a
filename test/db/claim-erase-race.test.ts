import { randomUUID } from 'node:crypto';
import { eraseConversationRows } from '../../db/repositories/erasure';
import { pruneConversations } from '../../db/repositories/retention';
import { createClaimStore } from '../../db/claims/store';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * A claim body stored by content (no PAYLOAD_ENCRYPTION_KEYS: the same bytes, the same hash, one row) that an erased
 * or pruned conversation stored, while another conversation's turn stores the same bytes: the body stays for that one.
 */
describe('erasing or pruning a conversation while another stores the same claim body', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb.drop());

  const body = new TextEncoder().encode('the same large tool catalogue '.repeat(200));
  const DAY = 24 * 60 * 60 * 1000;
  const erase = (id: string) => eraseConversationRows(tdb.db, id, { ended: null, erasedBy: 'test' });
  const prune = () => pruneConversations(tdb.db, new Date(Date.now() - DAY));

  it.each([
    ['an erase', 'a', erase],
    ['a prune', 'b', prune],
  ])(
    "%s keeps the body and the other conversation's link when that store commits while it waits",
    async (_, c, run) => {
      const hash = c.repeat(64);
      const [gone, other] = [randomUUID(), randomUUID()];
      // Idle for ten days: what a prune takes.
      await tdb.db.$client.query(
        `INSERT INTO ce_conversation (conversation_id, turn_count, created_at, updated_at)
       VALUES ($1, 1, now() - interval '10 days', now() - interval '10 days')`,
        [gone]
      );
      await createClaimStore(tdb.db).putMany([{ hash, body }], gone);
      // The other turn's store (db/claims/store.ts) has run its statement and not committed yet.
      const storing = await tdb.db.$client.connect();
      await storing.query('BEGIN');
      await storing.query(
        `WITH stored AS (INSERT INTO ce_payload_claim (claim_hash, body, size_bytes) VALUES ($1, $2, $3)
                       ON CONFLICT (claim_hash) DO UPDATE SET last_referenced_at = now() RETURNING claim_hash)
       INSERT INTO ce_payload_claim_conversation (conversation_id, claim_hash) SELECT $4, claim_hash FROM stored`,
        [hash, Buffer.from(body), body.byteLength, other]
      );
      const deleting = run(gone);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await storing.query('COMMIT');
      storing.release();
      expect(await deleting).toMatchObject({ conversations: 1, claims: 0 });

      const links = await tdb.db.$client.query(
        'SELECT conversation_id FROM ce_payload_claim_conversation WHERE claim_hash = $1',
        [hash]
      );
      expect(links.rows).toEqual([{ conversation_id: other }]);
      expect((await createClaimStore(tdb.db).getMany([hash])).get(hash)).toEqual(body);
    }
  );
});
