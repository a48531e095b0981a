import type { ConfigRows } from '../../core/config/types';
import { applyConfigRows } from '../../db/config/apply';
import { configVersionOf, readConfigRows } from '../../db/config/load';
import { logConfigRejections } from '../../db/config/rejection-log';
import { createConfigStore } from '../../db/config/store';
import { seedPacks } from '../../db/seed';
import { createLogger } from '../../observability/logger';
import { withResponseText } from '../support/config-rows';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog } from '../support/log-capture';

jest.setTimeout(30_000);

const BREAK_RULE = "UPDATE ce_rule SET match_pattern = '(' WHERE rule_id = 10";

/**
 * "The last valid snapshot" is a fact of the database, not of each process: `config apply` stores what it wrote
 * as in service, and a store that refuses the tables serves the newest stored snapshot that validates. A worker
 * that served V1 used to keep V1 after `config apply r8` and a bad edit with no turn in between, while the API,
 * which had loaded at another moment, logged another version.
 */
describe('database config stores over one database converge on the newest valid config', () => {
  let tdb: TestDatabase;
  let clock = 0;
  let configV1: ConfigRows;
  let configR8: ConfigRows;
  const later = () => {
    clock += 1_000;
  };
  const runningProcess = (name: string) => {
    const out = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name, destination: out.stream });
    const store = createConfigStore(tdb.db, { now: () => clock, onRejected: logConfigRejections(logger) });
    return { store, messages: () => out.lines().map((line) => line['msg']) };
  };

  beforeEach(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['faq']);
    configV1 = await readConfigRows(tdb.db);
    configR8 = withResponseText(configV1, 10, 'r8');
  });
  afterEach(async () => {
    await tdb.drop();
  });

  it('a worker and the API serving V1 both serve the applied config once the next edit breaks a row', async () => {
    const worker = runningProcess('worker');
    const api = runningProcess('api');
    const v1 = await worker.store.current();
    expect((await api.store.current()).version).toBe(v1.version);
    const { version: r8 } = await applyConfigRows(tdb.db, configR8);
    expect(r8).toBe(configVersionOf(configR8));
    await tdb.pool.query(BREAK_RULE); // no turn in between: neither store has read r8
    later();
    expect((await worker.store.current()).version).toBe(r8);
    expect((await api.store.current()).version).toBe(r8);
    for (const proc of [worker, api]) {
      expect(proc.messages()).toEqual([expect.stringContaining(`serving stored config ${r8}, the newest stored one`)]);
    }
    // A turn pinned to V1 before the switch still runs on V1.
    expect(await worker.store.get(v1.version)).toBe(v1);
  });

  it('refresh refuses the rows and moves to the applied config too; a restart starts on it', async () => {
    const api = runningProcess('api');
    await api.store.current();
    const { version: r8 } = await applyConfigRows(tdb.db, configR8);
    await tdb.pool.query(BREAK_RULE);
    await expect(api.store.refresh()).rejects.toMatchObject({ type: 'CONFIG_INVALID' });
    expect((await api.store.current()).version).toBe(r8);
    expect((await runningProcess('worker').store.current()).version).toBe(r8);
  });

  it('a store that stays on the newest valid config says it stays in service', async () => {
    const worker = runningProcess('worker');
    await applyConfigRows(tdb.db, configR8);
    const served = await worker.store.current();
    await tdb.pool.query(BREAK_RULE);
    later();
    expect(await worker.store.current()).toBe(served);
    expect(worker.messages()).toEqual([expect.stringContaining(`; config ${served.version} stays in service`)]);
  });

  it('seeding stores its config, so a process starting after a bad edit has one to serve', async () => {
    await tdb.pool.query(BREAK_RULE); // no store has ever run on this database
    expect((await runningProcess('worker').store.current()).version).toBe(configVersionOf(configV1));
  });
});
