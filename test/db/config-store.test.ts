import { sql as drizzleSql } from 'drizzle-orm';
import { isEngineError } from '../../core/errors';
import type { ConfigViolation } from '../../core/config/types';
import { configVersionOf, readConfigRevision, readConfigRows } from '../../db/config/load';
import { createConfigStore, type DatabaseConfigStore } from '../../db/config/store';
import type { Database } from '../../db/pool';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

async function failureOf(
  promise: Promise<unknown>
): Promise<{ type: string; message: string; violations: ConfigViolation[] }> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err
  );
  if (!isEngineError(error)) throw new Error(`expected an EngineError, got ${String(error)}`);
  return {
    type: error.type,
    message: error.message,
    violations: (error.details?.violations ?? []) as ConfigViolation[],
  };
}

// jest.config's per-project testTimeout is not applied by Jest; database setup can be slow under load.
jest.setTimeout(30_000);

describe('database config store', () => {
  let tdb: TestDatabase;
  let clock = 0;
  let rejected: readonly ConfigViolation[][] = [];
  let store: DatabaseConfigStore;
  const sql = (text: string) => tdb.pool.query(text);
  const later = () => {
    clock += 1_000;
  };

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['faq']);
    store = createConfigStore(tdb.db, {
      now: () => clock,
      onRejected: (violations) => {
        rejected = [...rejected, [...violations]];
      },
    });
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('serves a stable version across reloads and stores', async () => {
    const first = await store.current();
    expect(first.version).toBe(configVersionOf(await readConfigRows(tdb.db)));
    expect(await store.refresh()).toEqual({ version: first.version, changed: false, warnings: [] });
    later();
    expect(await store.current()).toBe(first);
    expect((await createConfigStore(tdb.db).current()).version).toBe(first.version);
    const { rows } = await sql(`SELECT count(*)::int AS n FROM ce_config_snapshot WHERE version = '${first.version}'`);
    expect(rows[0].n).toBe(1);
  });

  it('keeps the same snapshot after a no-op UPDATE (the revision moves, the version does not)', async () => {
    const before = await store.current();
    const revision = await readConfigRevision(tdb.db);
    await sql('UPDATE ce_response SET exact_text = exact_text WHERE response_id = 10');
    expect(await readConfigRevision(tdb.db)).toBeGreaterThan(revision);
    later();
    expect(await store.current()).toBe(before);
  });

  it('picks up a real edit after the staleness interval, and keeps old versions retrievable', async () => {
    const before = await store.current();
    await sql("UPDATE ce_response SET exact_text = 'Moves within zapper are supported.' WHERE response_id = 10");
    expect(await store.current()).toBe(before); // within the interval: not even the revision is read
    clock += 199;
    expect(await store.current()).toBe(before);
    clock += 1;
    const after = await store.current();
    expect(after.version).not.toBe(before.version);
    expect(after.rows.responses.find((r) => r.responseId === 10)?.exactText).toBe('Moves within zapper are supported.');
    expect(await store.get(before.version)).toBe(before);
    const other = createConfigStore(tdb.db);
    const fromDatabase = await other.get(before.version);
    expect(fromDatabase.rows).toEqual(before.rows);
    expect((await other.get(after.version)).version).toBe(after.version);
  });

  it.each([
    [
      'an unknown rule type',
      "UPDATE ce_rule SET rule_type = 'FOO' WHERE rule_id = 10",
      'ce_rule',
      '10',
      /unknown rule_type "FOO"/,
    ],
    [
      'an invalid regex',
      "UPDATE ce_intent_classifier SET pattern = '(?i)(' WHERE classifier_id = 10",
      'ce_intent_classifier',
      '10',
      /invalid regular expression/,
    ],
    [
      'an invalid JSONPath',
      "UPDATE ce_rule SET rule_type = 'JSON_PATH', match_pattern = 'bad(((' WHERE rule_id = 10",
      'ce_rule',
      '10',
      /invalid JSONPath/,
    ],
    [
      'malformed JSON shape in a jsonb column',
      "INSERT INTO ce_prompt_template (template_id, intent_code, state_code, output_format, interaction_contract) VALUES (77, 'FAQ', 'IDLE', 'TEXT', '[\"affirm\"]')",
      'ce_prompt_template',
      '77',
      /interaction_contract must be a JSON object/,
    ],
    [
      'a blank scope',
      "UPDATE ce_response SET state_code = ' ' WHERE response_id = 10",
      'ce_response',
      '10',
      /state_code is null\/blank/,
    ],
  ])(
    'refuses %s: current() keeps serving and refresh() throws naming the row',
    async (_name, breakSql, table, id, reason) => {
      const serving = await store.current();
      const client = await tdb.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(breakSql);
        await client.query('COMMIT');
        later();
        expect(await store.current()).toBe(serving); // the background check refuses the new rows
        expect(store.rejectedViolations()).toEqual([expect.objectContaining({ table, id })]);
        const failure = await failureOf(store.refresh());
        expect(failure.type).toBe('CONFIG_INVALID');
        expect(failure.violations).toEqual([
          expect.objectContaining({ table, id, reason: expect.stringMatching(reason) }),
        ]);
        expect(failure.message).toContain(`${table}[${id}]: `);
        later();
        expect(await store.current()).toBe(serving);
        expect(store.rejectedViolations()).toEqual(failure.violations);
        expect(rejected.at(-1)).toEqual(failure.violations);
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release();
        await sql(
          "UPDATE ce_rule SET rule_type = 'REGEX', match_pattern = '(?i)\\b(reset|start over)\\b' WHERE rule_id = 10; " +
            "UPDATE ce_intent_classifier SET pattern = '(?i)^\\s*(can i|how do i|how can i)\\s+(move|transfer)\\b' WHERE classifier_id = 10; " +
            "UPDATE ce_response SET state_code = 'IDLE' WHERE response_id = 10; DELETE FROM ce_prompt_template WHERE template_id = 77"
        );
      }
      expect(await store.refresh()).toEqual({ version: serving.version, changed: false, warnings: [] });
      expect(store.rejectedViolations()).toEqual([]);
    }
  );

  it('starts on the newest valid stored snapshot when the tables do not validate, and says why', async () => {
    const lastGood = await store.current();
    await sql(
      "UPDATE ce_rule SET rule_type = 'FOO' WHERE rule_id = 10; UPDATE ce_response SET state_code = 'LIMBO' WHERE response_id = 10"
    );
    try {
      const told: ConfigViolation[][] = [];
      const restarted = createConfigStore(tdb.db, { onRejected: (v) => void told.push([...v]) });
      expect((await restarted.current()).version).toBe(lastGood.version);
      expect(
        restarted
          .rejectedViolations()
          .map((v) => `${v.table}[${v.id}]`)
          .sort()
      ).toEqual(['ce_response[10]', 'ce_rule[10]']);
      expect(told).toHaveLength(1);
    } finally {
      await sql(
        "UPDATE ce_rule SET rule_type = 'REGEX' WHERE rule_id = 10; UPDATE ce_response SET state_code = 'IDLE' WHERE response_id = 10"
      );
    }
  });

  it('refuses to start on an invalid config with no valid snapshot stored, listing every violation', async () => {
    const stored = await tdb.pool.query('SELECT version, rows_json, created_at FROM ce_config_snapshot');
    await sql(
      "UPDATE ce_rule SET rule_type = 'FOO' WHERE rule_id = 10; UPDATE ce_response SET state_code = 'LIMBO' WHERE response_id = 10; DELETE FROM ce_config_snapshot"
    );
    try {
      const failure = await failureOf(createConfigStore(tdb.db).current());
      expect(failure.type).toBe('CONFIG_INVALID');
      expect(failure.message).toMatch(/ce_rule\[10\]: unknown rule_type "FOO"/);
      expect(failure.message).toMatch(/ce_response\[10\]: invalid state_code=LIMBO/);
      expect(failure.violations).toHaveLength(2);
      const report = await createConfigStore(tdb.db).validateDatabase();
      expect(report.violations.map((v) => `${v.table}[${v.id}]`).sort()).toEqual(['ce_response[10]', 'ce_rule[10]']);
    } finally {
      await sql(
        "UPDATE ce_rule SET rule_type = 'REGEX' WHERE rule_id = 10; UPDATE ce_response SET state_code = 'IDLE' WHERE response_id = 10"
      );
      for (const row of stored.rows as { version: string; rows_json: unknown; created_at: Date }[]) {
        await tdb.pool.query('INSERT INTO ce_config_snapshot (version, rows_json, created_at) VALUES ($1, $2, $3)', [
          row.version,
          JSON.stringify(row.rows_json),
          row.created_at,
        ]);
      }
    }
  });

  it('answers CONFIG_VERSION_UNAVAILABLE for unknown or tampered versions', async () => {
    expect((await failureOf(store.get('0000000000000000'))).type).toBe('CONFIG_VERSION_UNAVAILABLE');
    const current = await store.current();
    await sql(
      `INSERT INTO ce_config_snapshot (version, rows_json) SELECT 'feedfacefeedface', rows_json FROM ce_config_snapshot WHERE version = '${current.version}'`
    );
    const tampered = await failureOf(createConfigStore(tdb.db).get('feedfacefeedface'));
    expect(tampered).toMatchObject({
      type: 'CONFIG_VERSION_UNAVAILABLE',
      message: expect.stringMatching(/does not hash/),
    });
  });

  it('gives concurrent callers the same new snapshot', async () => {
    await sql("UPDATE ce_response SET exact_text = 'Concurrent edit.' WHERE response_id = 10");
    later();
    const snapshots = await Promise.all(Array.from({ length: 10 }, () => store.current()));
    expect(new Set(snapshots).size).toBe(1);
    expect(snapshots[0]?.rows.responses.find((r) => r.responseId === 10)?.exactText).toBe('Concurrent edit.');
  });

  /** The database, except that the first transaction's session is terminated under it (pg_terminate_backend). */
  function losesFirstTransaction(): { db: Database; transactions: () => number } {
    let transactions = 0;
    const transaction: Database['transaction'] = (run, config) =>
      tdb.db.transaction(async (tx) => {
        transactions += 1;
        if (transactions === 1) await tx.execute(drizzleSql`SELECT pg_terminate_backend(pg_backend_pid())`);
        return run(tx);
      }, config);
    const db = new Proxy(tdb.db, {
      get: (target, prop, receiver) => (prop === 'transaction' ? transaction : Reflect.get(target, prop, receiver)),
    });
    return { db, transactions: () => transactions };
  }

  it('loads its first snapshot on a fresh connection when the connection of its read transaction is lost', async () => {
    const { db, transactions } = losesFirstTransaction();
    const fresh = createConfigStore(db);
    expect((await fresh.current()).version).toBe(configVersionOf(await readConfigRows(tdb.db)));
    expect(transactions()).toBe(2);
    expect(await readConfigRevision(tdb.db)).toBeGreaterThan(0);
  });
});
