import { buildApi } from '../../api/app';
import type { ConfigRows } from '../../core/config/types';
import { applyConfigRows } from '../../db/config/apply';
import { configVersionOf, readConfigRows } from '../../db/config/load';
import { createConfigStore } from '../../db/config/store';
import { diffConfig, formatChange } from '../../db/config/yaml-tree';
import { seedPacks } from '../../db/seed';
import { fakePorts } from '../support/fake-ports';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(60_000);

/** JSON text of a schema nesting `levels` object schemas (two JSON levels each), as an author's jsonb_set would write it. */
function deepSchemaText(levels: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
}

const DEEP_SCHEMA_SQL =
  "UPDATE ce_output_schema SET json_schema = jsonb_set(json_schema, '{properties,deep}', $1::jsonb) WHERE schema_id = 109";
const DEEP_FIELDS_SQL =
  'UPDATE ce_semantic_entity SET fields_json = $1::jsonb WHERE entity_id = (SELECT min(entity_id) FROM ce_semantic_entity)';
const SCHEMA_VIOLATION = {
  table: 'ce_output_schema',
  id: '109',
  reason: 'json_schema is JSON nested deeper than 64 levels',
};

/**
 * A config JSON value nested thousands of levels deep, written with SQL, used to overflow the stack in the
 * version hash: validate-config named no row, refresh answered 500, `config apply` could not repair it and no
 * process could start. It is read as a violation of its row instead (core/config/json-depth.ts).
 */
describe('config JSON nested too deep in the database', () => {
  let tdb: TestDatabase;
  let good: ConfigRows;
  let entityId: number;
  const breakRows = async () => {
    await tdb.pool.query(DEEP_SCHEMA_SQL, [deepSchemaText(5_000)]);
    await tdb.pool.query(DEEP_FIELDS_SQL, [`${'['.repeat(4_000)}${']'.repeat(4_000)}`]);
  };

  beforeEach(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
    good = await readConfigRows(tdb.db);
    entityId = Math.min(...good.semanticEntities.map((e) => e.entityId));
  });
  afterEach(async () => {
    await tdb.drop();
  });

  it('a store starting on the rows serves the stored snapshot and names both rows and columns', async () => {
    await createConfigStore(tdb.db).current();
    await breakRows();
    const restarted = createConfigStore(tdb.db);
    expect((await restarted.current()).version).toBe(configVersionOf(good));
    expect(restarted.rejectedViolations()).toEqual([
      SCHEMA_VIOLATION,
      { table: 'ce_semantic_entity', id: String(entityId), reason: 'fields_json is JSON nested deeper than 64 levels' },
    ]);
    expect((await restarted.validateDatabase()).violations).toHaveLength(2);
  });

  it('POST /api/v1/admin/config/refresh answers 422 CONFIG_INVALID naming the row', async () => {
    const store = createConfigStore(tdb.db);
    const served = await store.current();
    await tdb.pool.query(DEEP_SCHEMA_SQL, [deepSchemaText(5_000)]);
    const app = buildApi({
      ports: { ...fakePorts({}), config: { refresh: () => store.refresh() } },
      messageMaxBytes: 8192,
      logLevel: 'silent',
    });
    try {
      const res = await app.inject({ method: 'POST', url: '/api/v1/admin/config/refresh' });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({
        code: 'CONFIG_INVALID',
        details: { violations: ['ce_output_schema[109]: json_schema is JSON nested deeper than 64 levels'] },
      });
    } finally {
      await app.close();
    }
    expect(await store.current()).toBe(served);
  });

  it('the rows read as they are show the deep values changed, and applying a valid set replaces them', async () => {
    await breakRows();
    const current = await readConfigRows(tdb.db);
    expect(diffConfig(current, good).map(formatChange)).toEqual([
      '~ ce_output_schema[109]: json_schema',
      `~ ce_semantic_entity[${entityId}]: fields_json`,
    ]);
    expect(await applyConfigRows(tdb.db, good)).toEqual({ version: configVersionOf(good), written: true });
    expect((await createConfigStore(tdb.db).validateDatabase()).violations).toEqual([]);
  });

  it('a stored snapshot nested too deep is unavailable, not a stack overflow, and no fallback', async () => {
    const version = (await createConfigStore(tdb.db).current()).version;
    await tdb.pool.query('UPDATE ce_config_snapshot SET rows_json = $1::jsonb', [
      `{"configs":${'['.repeat(3_000)}${']'.repeat(3_000)}}`,
    ]);
    await expect(createConfigStore(tdb.db).get(version)).rejects.toMatchObject({ type: 'CONFIG_VERSION_UNAVAILABLE' });
    await breakRows();
    await expect(createConfigStore(tdb.db).current()).rejects.toMatchObject({
      type: 'CONFIG_INVALID',
      details: { violations: expect.arrayContaining([SCHEMA_VIOLATION]) },
    });
  });
});
