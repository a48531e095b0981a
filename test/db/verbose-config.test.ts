import { isEngineError } from '../../core/errors';
import type { ConfigRows, ConfigViolation } from '../../core/config/types';
import { configVersionOf, readConfigRows } from '../../db/config/load';
import { createConfigStore } from '../../db/config/store';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(30_000);

async function violationsOf(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err
  );
  if (!isEngineError(error)) throw new Error(`expected an EngineError, got ${String(error)}`);
  return ((error.details?.violations ?? []) as ConfigViolation[]).map((v) => `${v.table}[${v.id}]: ${v.reason}`);
}

/** Issue #21: ce_verbose rows load into the snapshot; a bad row is refused at load, naming it. */
describe('ce_verbose in the config snapshot', () => {
  let tdb: TestDatabase;
  const sql = (text: string) => tdb.pool.query(text);

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['order-diagnostics']);
  });
  afterAll(async () => tdb.drop());

  it('loads the seed pack rows into the snapshot', async () => {
    const snapshot = await createConfigStore(tdb.db).current();
    expect(snapshot.rows.verboses.map((v) => [v.verboseId, v.toolCode, v.message])).toEqual([
      [5201, 'mock.order.status', 'Looking up order status…'],
      [5202, 'mock.order.async.trace', 'Tracing the async callback…'],
      [5203, null, 'Diagnosis ready.'],
    ]);
  });

  it('refuses rows with an invalid regex, an invalid JSONPath, an unknown step or determinant; keeps the old snapshot', async () => {
    const store = createConfigStore(tdb.db);
    const served = await store.current();
    await sql(`INSERT INTO ce_verbose (verbose_id, intent_code, state_code, step_match, step_value, determinant, message) VALUES
      (91, 'ANY', 'ANY', 'REGEX', '(Step', 'STEP_ENTER', 'x'),
      (92, 'ANY', 'ANY', 'JSON_PATH', '$[?(@.a ==', 'ANY', 'x'),
      (93, 'ANY', 'ANY', 'EXACT', 'AgentIntentResolver', 'AGENT_INTENT_START', 'x'),
      (94, 'ANY', 'ANY', 'EXACT', 'McpToolStep', 'MCP_TOOL_CALLED', 'x')`);
    const violations = await violationsOf(store.refresh());
    expect(violations).toEqual([
      expect.stringMatching(/^ce_verbose\[91\]: step_value: invalid regular expression "\(Step"/),
      expect.stringMatching(/^ce_verbose\[92\]: step_value: invalid JSONPath/),
      expect.stringMatching(/^ce_verbose\[93\]: unknown step "AgentIntentResolver"/),
      expect.stringMatching(/^ce_verbose\[93\]: unknown determinant "AGENT_INTENT_START"/),
      expect.stringMatching(/^ce_verbose\[94\]: unknown determinant "MCP_TOOL_CALLED"/),
    ]);
    expect(await store.current()).toBe(served);
    await sql('DELETE FROM ce_verbose WHERE verbose_id BETWEEN 91 AND 94');
  });

  it('keeps the version of a config without ce_verbose rows, so snapshots stored before the table still load', async () => {
    const rows = await readConfigRows(tdb.db);
    const { verboses: _rows, ...before } = { ...rows, verboses: [] };
    const legacy = before as unknown as ConfigRows;
    const version = configVersionOf(legacy);
    expect(configVersionOf({ ...legacy, verboses: [] })).toBe(version);
    expect(configVersionOf(rows)).not.toBe(version);
    await sql(
      `INSERT INTO ce_config_snapshot (version, rows_json) VALUES ('${version}', '${JSON.stringify(legacy).replace(/'/g, "''")}')`
    );
    const loaded = await createConfigStore(tdb.db).get(version);
    expect(loaded.version).toBe(version);
    expect(loaded.rows.verboses).toEqual([]);
  });
});
