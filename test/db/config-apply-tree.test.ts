import { parse, stringify } from 'yaml';
import { draftFromRows } from '../../activities/whatif/draft';
import type { ConfigRows } from '../../core/config/types';
import { templateFor } from '../../core/schema/resolve';
import { applyConfigRows, ConfigWriteError } from '../../db/config/apply';
import { readExactConfigRows } from '../../db/config/exact-rows';
import { readConfigRevision, readConfigRows, snapshotOf } from '../../db/config/load';
import { configToYaml, diffConfig, yamlToConfig, type YamlFiles } from '../../db/config/yaml-tree';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(120_000);

type Row = Record<string, unknown>;

/** One table file of `files` edited as a list of rows. */
function editFile(files: YamlFiles, name: string, edit: (rows: Row[]) => Row[]): YamlFiles {
  const out = new Map(files);
  out.set(name, stringify(edit(parse(files.get(name) ?? '[]') as Row[]), { lineWidth: 0 }));
  return out;
}

function treeRows(files: YamlFiles): ConfigRows {
  const { rows, errors } = yamlToConfig(files);
  expect(errors).toEqual([]);
  return rows;
}

/** `config apply` of trees the old row-by-row upsert could not write, and a tree read as apply stores it. */
describe('applyConfigRows and the YAML tree', () => {
  let tdb: TestDatabase;
  let exported: YamlFiles;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
    const settings = [
      { config_id: 91, config_type: 'DialogueActStep', config_key: 'REGEX_NEGATE', config_value: '^\\s*(no)\\s*$' },
      { config_id: 92, config_type: 'DialogueActStep', config_key: 'REGEX_EDIT', config_value: '^\\s*(edit)\\s*$' },
    ];
    const files = editFile(configToYaml(await readExactConfigRows(tdb.db)), 'ce_config.yaml', () => settings);
    await applyConfigRows(tdb.db, treeRows(files));
    exported = configToYaml(await readExactConfigRows(tdb.db));
  });
  afterAll(async () => tdb.drop());
  // Each test starts from the export.
  afterEach(async () => applyConfigRows(tdb.db, treeRows(exported)));

  it('applies a tree in which two rows swap a unique key (tool_code, config_type + config_key, concept_key)', async () => {
    const swap = (column: string, a: number, b: number, idColumn: string) => (rows: Row[]) => {
      const x = rows.find((r) => r[idColumn] === a) as Row;
      const y = rows.find((r) => r[idColumn] === b) as Row;
      [x[column], y[column]] = [y[column], x[column]];
      return rows;
    };
    let files = editFile(exported, 'ce_mcp_tool.yaml', swap('tool_code', 5001, 5002, 'tool_id'));
    files = editFile(files, 'ce_config.yaml', swap('config_key', 91, 92, 'config_id'));
    files = editFile(files, 'ce_semantic_concept.yaml', swap('concept_key', 701, 702, 'concept_id'));
    // The concepts' synonyms and mappings follow their concept's new key.
    await applyConfigRows(tdb.db, treeRows(files));
    const after = await readConfigRows(tdb.db);
    const code = (id: number) => after.mcpTools.find((t) => t.toolId === id)?.toolCode;
    expect([code(5001), code(5002)]).toEqual(['mock.order.async.trace', 'mock.order.status']);
    const key = (id: number) => after.configs.find((c) => c.configId === id)?.configKey;
    expect([key(91), key(92)]).toEqual(['REGEX_EDIT', 'REGEX_NEGATE']);
    const concept = (id: number) => after.semanticConcepts.find((c) => c.conceptId === id)?.conceptKey;
    expect([concept(701), concept(702)]).toEqual(['REQUEST_STATUS', 'DISCONNECT_REQUEST']);
  });

  it('refuses a tree with one unique key twice, naming the file, the row and the column', () => {
    const files = editFile(exported, 'ce_semantic_entity.yaml', (rows) => {
      (rows[1] as Row)['entity_key'] = (rows[0] as Row)['entity_key'];
      return rows;
    });
    expect(yamlToConfig(files).errors).toEqual([
      {
        file: 'ce_semantic_entity.yaml',
        message:
          'row 2: entity_key "DISCONNECT_REQUEST" is row 1\'s too; two rows of ce_semantic_entity may not share it',
      },
    ]);
  });

  it('names the table file and the row when the database refuses a set that validated', async () => {
    const rows = await readExactConfigRows(tdb.db);
    const [first] = rows.semanticEntities;
    const entities = [...rows.semanticEntities, { ...first, entityId: 799 }] as ConfigRows['semanticEntities'];
    const revision = await readConfigRevision(tdb.db);
    const failure = applyConfigRows(tdb.db, { ...rows, semanticEntities: entities });
    await expect(failure).rejects.toBeInstanceOf(ConfigWriteError);
    await expect(failure).rejects.toThrow(
      'ce_semantic_entity.yaml: the rows could not be written: duplicate key value violates unique constraint ' +
        '"ce_semantic_entity_entity_key_key" (Key (entity_key)=(DISCONNECT_REQUEST) already exists.)'
    );
    expect(await readConfigRevision(tdb.db)).toBe(revision);
  });

  it('reads a tree as apply stores it: a created_at left out or written with an offset picks the same template and version', async () => {
    const files = editFile(exported, 'ce_prompt_template.yaml', (rows) => {
      const extraction = rows.find((r) => r['template_id'] === 124) as Row;
      // The same instant as the pack's 2026-01-01T00:00:00.000Z, written with its offset: a tie, which the id breaks.
      extraction['created_at'] = '2026-01-01T02:00:00+02:00';
      const second: Row = { ...extraction, template_id: 199, system_prompt: 'Extract the fields, second version.' };
      delete second['created_at'];
      return [...rows, second];
    });
    const rows = treeRows(files);
    const draft = draftFromRows(rows);
    const picked = templateFor(draft, 'SCHEMA_JSON', 'LOAN_APPLICATION', 'ELIGIBILITY_GATE');
    const { version } = await applyConfigRows(tdb.db, rows);
    const stored = snapshotOf(await readConfigRows(tdb.db));
    expect(version).toBe(draft.version);
    expect(stored.version).toBe(draft.version);
    expect(picked?.templateId).toBe(199);
    expect(templateFor(stored, 'SCHEMA_JSON', 'LOAN_APPLICATION', 'ELIGIBILITY_GATE')?.templateId).toBe(199);
    // Left out, created_at is the packs' fixed instant, so the same tree applied again changes nothing.
    expect(stored.rows.promptTemplates.find((t) => t.templateId === 199)?.createdAt).toBe('2026-01-01T00:00:00.000Z');
    expect(diffConfig(await readExactConfigRows(tdb.db), treeRows(files))).toEqual([]);
  });

  it('diffs a created_at change, which changes the config version and may change the template that wins', async () => {
    const files = editFile(exported, 'ce_prompt_template.yaml', (rows) => {
      (rows.find((r) => r['template_id'] === 124) as Row)['created_at'] = '2026-02-01T00:00:00.000Z';
      return rows;
    });
    const current = await readExactConfigRows(tdb.db);
    const next = treeRows(files);
    expect(draftFromRows(next).version).not.toBe(snapshotOf(current).version);
    expect(diffConfig(current, next)).toEqual([
      { table: 'ce_prompt_template', id: '124', change: '~', columns: ['created_at'] },
    ]);
  });
});
