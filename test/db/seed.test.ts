import { formatViolation } from '../../core/config/types';
import { createConfigStore } from '../../db/config/store';
import { SEED_PACKS, seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { expectedConfigCounts, rowCounts } from './config-row-counts';

// jest.config's per-project testTimeout is not applied by Jest; database setup can be slow under load.
jest.setTimeout(30_000);

describe.each([...SEED_PACKS.map((p) => [p.name, [p]] as const), ['all', SEED_PACKS] as const])(
  'seed pack %s',
  (name, packs) => {
    let tdb: TestDatabase;
    beforeAll(async () => {
      tdb = await createTestDatabase();
    });
    afterAll(async () => {
      await tdb.drop();
    });

    it('seeds twice without duplicating anything and validates', async () => {
      const first = await seedPacks(tdb.db, [name]);
      const afterFirst = await rowCounts(tdb);
      const second = await seedPacks(tdb.db, [name]);
      expect(await rowCounts(tdb)).toEqual(afterFirst);
      expect(second.version).toBe(first.version);
      expect(afterFirst).toMatchObject(expectedConfigCounts(packs));
      for (const table of packs.flatMap((p) => p.business)) {
        expect(afterFirst[`business.${table.name}`]).toBeGreaterThan(0);
      }
      const store = createConfigStore(tdb.db);
      expect((await store.current()).version).toBe(first.version);
      expect(await store.validateDatabase()).toEqual({
        version: first.version,
        violations: [],
        warnings: [],
        empty: false,
      });
    });
  }
);

describe('seeded data and permissions', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
  });
  afterAll(async () => {
    await tdb.drop();
  });

  async function scalar(query: string): Promise<unknown> {
    const { rows } = await tdb.pool.query(query);
    return Object.values(rows[0] ?? {})[0];
  }

  it('holds the facts the zapper demo answers', async () => {
    expect(
      await scalar(`SELECT count(*)::int FROM business.zp_disco_request r WHERE EXISTS (
        SELECT 1 FROM business.zp_disco_request_log l WHERE l.request_id = r.request_id
        AND l.from_status = 810 AND l.to_status = 120
        AND l.changed_at >= '2026-03-12T00:00:00-08:00' AND l.changed_at < '2026-03-13T00:00:00-08:00')`)
    ).toBe(7);
    expect(
      await scalar(
        "SELECT count(*)::int FROM business.zp_order_downstream_check WHERE request_id = 'ZPR1003' AND downstream_disconnect_order_id IS NULL"
      )
    ).toBe(1);
    const { rows } = await tdb.pool.query(
      "SELECT record_status, balance::text AS balance FROM business.zp_billbank_record WHERE disconnect_id = 'ZPDISC7003'"
    );
    expect(rows).toEqual([{ record_status: 'CLOSED', balance: '0.00' }]);
    expect(
      await scalar("SELECT count(*)::int FROM business.zp_disco_request WHERE account_id = 'UPSA100'")
    ).toBeGreaterThan(0);
    expect(
      await scalar("SELECT status FROM business.move_request WHERE connection_id = 'USPSC003BA100SA277CON1388'")
    ).toBe('MOVED');
  });

  it('lets the tools role read business tables and nothing else', async () => {
    const client = await tdb.pool.connect();
    const attempt = async (query: string) => {
      await client.query('SAVEPOINT probe');
      try {
        await client.query(query);
        return 'ok';
      } catch (err) {
        await client.query('ROLLBACK TO SAVEPOINT probe');
        return (err as Error).message;
      }
    };
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL ROLE ${tdb.toolsRole}`);
      expect(await attempt("SELECT status FROM business.move_request WHERE connection_id = 'x'")).toBe('ok');
      expect(await attempt('SELECT count(*) FROM business.zp_billbank_record')).toBe('ok');
      expect(await attempt('SELECT count(*) FROM ce_intent')).toMatch(/permission denied/);
      expect(await attempt("UPDATE business.move_request SET status = 'X'")).toMatch(/permission denied/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it("keeps an author's edit of a seeded row when seeding again (as every `convengine start` does)", async () => {
    await tdb.pool.query("UPDATE ce_response SET exact_text = 'edited' WHERE response_id = 10");
    await seedPacks(tdb.db, ['faq']);
    expect(await scalar('SELECT exact_text FROM ce_response WHERE response_id = 10')).toBe('edited');
  });

  it("does not stop on an author's invalid edit it did not make (nothing to insert): it reports it", async () => {
    const original = await scalar('SELECT match_pattern FROM ce_rule WHERE rule_id = 10');
    await tdb.pool.query("UPDATE ce_rule SET match_pattern = '(unclosed' WHERE rule_id = 10");
    try {
      const report = await seedPacks(tdb.db, ['faq']);
      expect(report.violations.map(formatViolation)).toEqual([expect.stringMatching(/^ce_rule\[10\]: /)]);
    } finally {
      await tdb.pool.query('UPDATE ce_rule SET match_pattern = $1 WHERE rule_id = 10', [original]);
    }
  });

  it('puts back a seeded row that was deleted', async () => {
    await tdb.pool.query('DELETE FROM ce_response WHERE response_id = 10');
    await seedPacks(tdb.db, ['faq']);
    expect(await scalar('SELECT exact_text FROM ce_response WHERE response_id = 10')).toBe(
      'Yes, internal account moves are supported.'
    );
  });
});
