import type { ConfigRows, ConfigSnapshot } from '../../core/config/types';
import { applyConfigRows } from '../../db/config/apply';
import { configVersionOf, readConfigRows } from '../../db/config/load';
import { logConfigRejections } from '../../db/config/rejection-log';
import { createConfigStore, type DatabaseConfigStore } from '../../db/config/store';
import type { Database } from '../../db/pool';
import { seedPacks } from '../../db/seed';
import { createLogger } from '../../observability/logger';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog } from '../support/log-capture';

jest.setTimeout(30_000);

// The outside tester's break: an unterminated character class in a live rule.
const BREAK_RULE = "UPDATE ce_rule SET match_pattern = '(?i)([a-' WHERE rule_id = 10";

/**
 * Which config a store falls back to when it starts on tables that do not validate: the one last in service,
 * not the one whose snapshot row happens to be the newest created (a version's row is written once, on its
 * first serving, so re-applying an older config never made it "newer").
 */
describe('database config store: the fallback at start is the config last in service', () => {
  let tdb: TestDatabase;
  let clock = 0;
  let configA: ConfigRows;
  let configB: ConfigRows;
  const sql = (text: string) => tdb.pool.query(text);
  const later = () => {
    clock += 1_000;
  };
  /** The warnings a process logs about refused config, and the store option that logs them. */
  const logged = () => {
    const out = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: out.stream });
    return { onRejected: logConfigRejections(logger), lines: () => out.lines() };
  };
  const running = (db: Database = tdb.db) => createConfigStore(db, { now: () => clock });
  /** `config apply`, then the running store's next look at the tables. */
  const apply = async (store: DatabaseConfigStore, rows: ConfigRows): Promise<ConfigSnapshot> => {
    await applyConfigRows(tdb.db, rows);
    later();
    return store.current();
  };

  beforeEach(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['faq']);
    configA = await readConfigRows(tdb.db);
    // A minus a response row, as the tester's B.
    configB = { ...configA, responses: configA.responses.filter((r) => r.responseId !== 10) };
  });
  afterEach(async () => {
    await tdb.drop();
  });

  it('A, B, A again, then a broken row: a restart serves A, and the log names it', async () => {
    const store = running();
    expect((await store.current()).version).toBe(configVersionOf(configA));
    expect((await apply(store, configB)).version).toBe(configVersionOf(configB));
    expect((await apply(store, configA)).version).toBe(configVersionOf(configA));
    await sql(BREAK_RULE);

    const log = logged();
    const restarted = createConfigStore(tdb.db, { onRejected: log.onRejected });
    expect((await restarted.current()).version).toBe(configVersionOf(configA));
    expect(restarted.rejectedViolations()).toEqual([expect.objectContaining({ table: 'ce_rule', id: '10' })]);
    expect(log.lines()).toEqual([
      expect.objectContaining({
        msg: expect.stringContaining(
          `serving stored config ${configVersionOf(configA)}, the newest stored one that validates`
        ),
        servedVersion: configVersionOf(configA),
      }),
    ]);
  });

  it('once the tables hold the restored config again, a later refusal no longer says it is served from storage', async () => {
    await running().current(); // A served once, so it is stored
    await sql(BREAK_RULE);
    const log = logged();
    const store = createConfigStore(tdb.db, { now: () => clock, onRejected: log.onRejected });
    const restored = await store.current();
    await applyConfigRows(tdb.db, configA); // the operator puts the served config back in the tables
    later();
    expect(await store.current()).toBe(restored);
    await sql(BREAK_RULE);
    later();
    await store.current();
    expect(log.lines().map((l) => l['msg'])).toEqual([
      expect.stringContaining(`serving stored config ${restored.version}`),
      expect.stringContaining(`; config ${restored.version} stays in service`),
    ]);
  });

  it('the store running when the row broke names the config it keeps serving', async () => {
    const log = logged();
    const store = createConfigStore(tdb.db, { now: () => clock, onRejected: log.onRejected });
    const serving = await store.current();
    await sql(BREAK_RULE);
    later();
    expect(await store.current()).toBe(serving);
    expect(log.lines()).toEqual([
      expect.objectContaining({ msg: expect.stringContaining(`; config ${serving.version} stays in service`) }),
    ]);
  });

  it('orders by the config revision served, so a store that lags behind another cannot win', async () => {
    const fast = running();
    const slow = withHeldReads(tdb.db);
    const lagging = running(slow.db);
    await fast.current();
    await lagging.current();
    await applyConfigRows(tdb.db, configB);
    later();
    slow.hold(); // the lagging store reads B, then stalls before it records serving it
    const laggingCheck = lagging.current();
    await slow.reading;
    await applyConfigRows(tdb.db, configA);
    await sql("UPDATE ce_response SET exact_text = 'A2' WHERE response_id = 10");
    expect((await fast.current()).rows.responses.find((r) => r.responseId === 10)?.exactText).toBe('A2');
    slow.release();
    expect((await laggingCheck).version).toBe(configVersionOf(configB)); // recorded after A2's
    await sql(BREAK_RULE);
    const restarted = createConfigStore(tdb.db);
    expect((await restarted.current()).rows.responses.find((r) => r.responseId === 10)?.exactText).toBe('A2');
  });

  it('ranks a snapshot stored before 0017 (revision 0) below one served since, until its next serving records one', async () => {
    const store = running();
    await store.current();
    await apply(store, configB);
    // A as 0017 left a row stored before it: revision 0, last served when it was first stored.
    const a = configVersionOf(configA);
    await sql(
      `UPDATE ce_config_snapshot SET last_served_revision = 0, last_served_at = created_at WHERE version = '${a}'`
    );
    await sql(BREAK_RULE);
    expect((await createConfigStore(tdb.db).current()).version).toBe(configVersionOf(configB));
    await apply(store, configA);
    const { rows } = await sql(
      `SELECT s.last_served_revision::int AS served, r.revision::int AS current
         FROM ce_config_snapshot s, ce_config_revision r WHERE s.version = '${a}'`
    );
    const [{ served, current }] = rows as [{ served: number; current: number }];
    expect(served).toBeGreaterThan(0);
    expect(served).toBe(current);
  });

  it('ranks first a snapshot an older build stored (revision 0) after the last one served with a revision', async () => {
    const store = running();
    await store.current();
    await apply(store, configB);
    // Rolled back to a build from before 0017, an operator applies C: that build stores C without a revision.
    const configC = { ...configA, responses: configA.responses.filter((r) => r.responseId !== 11) };
    const c = configVersionOf(configC);
    await applyConfigRows(tdb.db, configC);
    await sql(`UPDATE ce_config_snapshot SET last_served_revision = 0, last_served_at = now() WHERE version = '${c}'`);
    await sql(BREAK_RULE); // rolled forward, the tables no longer validate
    expect((await createConfigStore(tdb.db).current()).version).toBe(c);
  });

  it('writes nothing per turn: the snapshot row moves only when a store starts serving at a newer revision', async () => {
    const store = running();
    const version = (await store.current()).version;
    const rowVersion = async () =>
      (await sql(`SELECT xmin::text AS x FROM ce_config_snapshot WHERE version = '${version}'`)).rows[0]?.x as string;
    const before = await rowVersion();
    for (let i = 0; i < 5; i += 1) {
      later();
      await store.current();
    }
    await createConfigStore(tdb.db).current(); // another process starting on the same tables
    expect(await rowVersion()).toBe(before);
  });
});

/** The database, except that a held read transaction does not return until it is released. */
function withHeldReads(db: Database) {
  let held: Promise<void> | null = null;
  let release = () => {};
  let readingDone = () => {};
  const control = {
    reading: Promise.resolve(),
    hold() {
      held = new Promise<void>((resolve) => (release = resolve));
      control.reading = new Promise<void>((resolve) => (readingDone = resolve));
    },
    release: () => release(),
    db: new Proxy(db, {
      get: (target, prop, receiver) =>
        prop === 'transaction'
          ? ((async (run, config) => {
              const result = await target.transaction(run, config);
              if (held) {
                const gate = held;
                held = null;
                readingDone();
                await gate;
              }
              return result;
            }) satisfies Database['transaction'])
          : Reflect.get(target, prop, receiver),
    }),
  };
  return control;
}
