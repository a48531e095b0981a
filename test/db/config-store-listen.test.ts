import type { ConfigRows } from '../../core/config/types';
import { reloadOnConfigChange, type ConfigChangeListener } from '../../db/config/change-listener';
import { applyConfigRows } from '../../db/config/apply';
import { configVersionOf, readConfigRows } from '../../db/config/load';
import { createConfigStore, type DatabaseConfigStore } from '../../db/config/store';
import { openDatabase } from '../../db/pool';
import { seedPacks } from '../../db/seed';
import { withResponseText } from '../support/config-rows';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(30_000);

/**
 * A config write reaches every process's store as it commits (the revision trigger's NOTIFY), so the next turn runs on
 * the new config and finds it loaded. Before, each store (the worker's, the API's) learnt of it only from its own
 * revision check, made when a turn asked and at most every stalenessCheckMs: a turn within that window ran on the old
 * config, and the first turn past it waited for the reload (read, validate, record; seconds for a large config).
 */
describe('config stores reload as a config write commits', () => {
  let tdb: TestDatabase;
  let listeners: ConfigChangeListener[];
  let configV1: ConfigRows;
  let configR8: ConfigRows;
  // A clock that never moves: no revision check of current() ever falls due, as within stalenessCheckMs of the last.
  const store = () => createConfigStore(tdb.db, { now: () => 0 });
  const listening = async (s: DatabaseConfigStore, relistenMs?: number) => {
    const listener = reloadOnConfigChange(s, tdb.pool, relistenMs === undefined ? {} : { relistenMs });
    listeners.push(listener);
    await listener.listening;
    return listener;
  };

  beforeEach(async () => {
    tdb = await createTestDatabase();
    listeners = [];
    await seedPacks(tdb.db, ['faq']);
    configV1 = await readConfigRows(tdb.db);
    configR8 = withResponseText(configV1, 10, 'r8');
  });
  afterEach(async () => {
    await Promise.all(listeners.map((l) => l.close()));
    await tdb.drop();
  });

  it('a turn right after config apply runs on the applied config, in the worker and the API alike', async () => {
    const [worker, api, unheard] = [store(), store(), store()];
    const heard = [await listening(worker), await listening(api)];
    const v1 = (await worker.current()).version;
    for (const s of [api, unheard]) expect((await s.current()).version).toBe(v1);
    const reloaded = heard.map((l) => l.nextReload());
    const { version: r8 } = await applyConfigRows(tdb.db, configR8);
    await Promise.all(reloaded);
    expect((await worker.current()).version).toBe(r8);
    expect((await api.current()).version).toBe(r8);
    // What each store did before: no check due, so the turn ran on the config before the apply.
    expect((await unheard.current()).version).toBe(v1);
  });

  it('an SQL edit of a config table is heard the same way, and the reload is done before a turn asks', async () => {
    const worker = store();
    const listener = await listening(worker);
    await worker.current();
    const reloaded = listener.nextReload();
    await tdb.pool.query("UPDATE ce_response SET exact_text = 'edited' WHERE response_id = 10");
    await reloaded;
    const served = await worker.current();
    expect(served.rows.responses.find((r) => r.responseId === 10)?.exactText).toBe('edited');
    expect(served.version).toBe(configVersionOf(await readConfigRows(tdb.db)));
  });

  it('listens again after its connection is lost, and checks then for a write it may have missed', async () => {
    const worker = store();
    const listener = await listening(worker, 20);
    await worker.current();
    const { rows } = await tdb.pool.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity ' +
        "WHERE datname = current_database() AND query LIKE 'LISTEN%'"
    );
    expect(rows).toEqual([{ pg_terminate_backend: true }]);
    const { version: r8 } = await applyConfigRows(tdb.db, configR8);
    // Heard either way: from the check after listening again, or from the notification once listening again.
    while ((await worker.current()).version !== r8) await listener.nextReload();
    expect((await worker.current()).version).toBe(r8);
  });

  it('an unreachable database delays nothing: listening resolves; one warning says turns check meanwhile', async () => {
    const away = openDatabase('postgres://postgres@127.0.0.1:1/none', { connectionTimeoutMillis: 1_000 });
    const warnings: string[] = [];
    const listener = reloadOnConfigChange(createConfigStore(away.db), away.pool, {
      logger: { warn: (line: string) => void warnings.push(line) },
      relistenMs: 20_000,
    });
    listeners.push(listener);
    await listener.listening;
    expect(warnings).toEqual([
      'config change listener: connect ECONNREFUSED 127.0.0.1:1; ' +
        'listening again in 20000 ms (turns check the config revision meanwhile)',
    ]);
    await away.close();
  });
});
