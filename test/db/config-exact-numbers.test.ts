import { applyConfigRows } from '../../db/config/apply';
import { readExactConfigRows } from '../../db/config/exact-rows';
import { configToYaml, diffConfig, yamlToConfig } from '../../db/config/yaml-tree';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(60_000);

/** Numbers a double does not hold: 23 digits, past a double's range (1e400, which jsonb writes out), 23 decimals. */
const BIG = '12345678901234567890123';
const HUGE = `1${'0'.repeat(400)}`;
const PRECISE = '0.12345678901234567890123';

/** A ce_output_schema.yaml of one row whose json_schema holds `value` (YAML text) at properties.n.maximum. */
const schemaFile = (value: string) =>
  new Map([
    [
      'ce_output_schema.yaml',
      `- schema_id: 1\n  intent_code: A\n  state_code: B\n  json_schema:\n    type: object\n    properties:\n      n:\n        maximum: ${value}\n`,
    ],
  ]);

/** config as code carries jsonb numbers exactly: what a double would change is written, read and compared as it is. */
describe('config as code: jsonb numbers beyond a double', () => {
  it.each([BIG, '1e400', PRECISE, '9007199254740993', '-1.5e-400'])(
    'a YAML tree with %s in a jsonb column writes it back verbatim',
    (value) => {
      const files = schemaFile(value);
      const tree = yamlToConfig(files);
      expect(tree.errors).toEqual([]);
      expect(configToYaml(tree.rows).get('ce_output_schema.yaml')).toContain(`        maximum: ${value}\n`);
    }
  );

  it('reads YAML forms of a number as JSON writes them, and hexadecimal exactly', () => {
    const tree = yamlToConfig(schemaFile(`+.12345678901234567890123`));
    expect(configToYaml(tree.rows).get('ce_output_schema.yaml')).toContain(`maximum: ${PRECISE}\n`);
    const hex = yamlToConfig(schemaFile('0x1000000000000000000'));
    expect(configToYaml(hex.rows).get('ce_output_schema.yaml')).toContain('maximum: 4722366482869645213696\n');
  });

  it('refuses, by file, row and column, what it cannot store exactly', () => {
    const scalar = schemaFile('1')
      .get('ce_output_schema.yaml')!
      .replace(/json_schema:[^]*$/, `json_schema: ${BIG}\n`);
    expect(yamlToConfig(new Map([['ce_output_schema.yaml', scalar]])).errors).toEqual([
      {
        file: 'ce_output_schema.yaml',
        message: expect.stringMatching(
          new RegExp(`^row 1: json_schema is the number ${BIG}, which a double does not hold exactly`)
        ),
      },
    ]);
    // .inf was written as null.
    expect(yamlToConfig(schemaFile('.inf')).errors).toEqual([
      {
        file: 'ce_output_schema.yaml',
        message: 'row 1: json_schema holds .inf or .nan, which JSON (and so jsonb) cannot hold',
      },
    ]);
    // 9007199254740993 was read as 9007199254740992, a valid id.
    const id = schemaFile('1').get('ce_output_schema.yaml')!.replace('schema_id: 1', 'schema_id: 9007199254740993');
    expect(yamlToConfig(new Map([['ce_output_schema.yaml', id]])).errors).toEqual([
      { file: 'ce_output_schema.yaml', message: 'row 1: schema_id must be a whole number, got 9007199254740993' },
    ]);
  });

  describe('against the database', () => {
    let tdb: TestDatabase;
    const setNumber = (toolId: number, key: string, value: string) =>
      tdb.pool.query(
        `UPDATE ce_mcp_http_tool SET input_schema = jsonb_set(input_schema, $1, $2::jsonb) WHERE tool_id = $3`,
        [`{properties,customerId,${key}}`, value, toolId]
      );
    const stored = async () =>
      (await tdb.pool.query('SELECT tool_id, input_schema::text AS s FROM ce_mcp_http_tool ORDER BY tool_id')).rows;

    beforeAll(async () => {
      tdb = await createTestDatabase();
      await seedPacks(tdb.db, ['loan-confirmation']);
      await setNumber(10201, 'maximum', BIG);
      await setNumber(10202, 'maximum', '1e400');
      await setNumber(10203, 'multipleOf', PRECISE);
    });
    afterAll(async () => tdb?.drop());

    it('export writes each number as stored; its diff is empty and applying it writes the same values', async () => {
      const before = await stored();
      const current = await readExactConfigRows(tdb.db);
      const files = configToYaml(current);
      const yaml = files.get('ce_mcp_http_tool.yaml')!;
      for (const line of [`maximum: ${BIG}\n`, `maximum: ${HUGE}\n`, `multipleOf: ${PRECISE}\n`]) {
        expect(yaml).toContain(line);
      }
      const tree = yamlToConfig(files);
      expect(tree.errors).toEqual([]);
      expect(diffConfig(current, tree.rows)).toEqual([]);
      await applyConfigRows(tdb.db, tree.rows);
      expect(await stored()).toEqual(before);
      expect(configToYaml(await readExactConfigRows(tdb.db))).toEqual(files);
    });

    it('diff reports a change a double cannot see, and apply writes it', async () => {
      const current = await readExactConfigRows(tdb.db);
      const yaml = configToYaml(current).get('ce_mcp_http_tool.yaml')!;
      const edited = yaml.replace(`maximum: ${BIG}\n`, `maximum: 12345678901234567890124\n`).replace(HUGE, `${HUGE}0`);
      const tree = yamlToConfig(new Map([['ce_mcp_http_tool.yaml', edited]]));
      expect(diffConfig(current, { ...current, mcpHttpTools: tree.rows.mcpHttpTools })).toEqual([
        { table: 'ce_mcp_http_tool', id: '10201', change: '~', columns: ['input_schema'] },
        { table: 'ce_mcp_http_tool', id: '10202', change: '~', columns: ['input_schema'] },
      ]);
      await applyConfigRows(tdb.db, { ...current, mcpHttpTools: tree.rows.mcpHttpTools });
      const maxima = await tdb.pool.query(
        "SELECT (input_schema #>> '{properties,customerId,maximum}') AS m FROM ce_mcp_http_tool WHERE tool_id IN (10201, 10202) ORDER BY tool_id"
      );
      expect(maxima.rows).toEqual([{ m: '12345678901234567890124' }, { m: `${HUGE}0` }]);
    });

    it('refuses to read a jsonb value that is such a number, naming its row and column', async () => {
      await tdb.pool.query(`UPDATE ce_mcp_http_tool SET response_mapping = $1::jsonb WHERE tool_id = 10203`, [BIG]);
      await expect(readExactConfigRows(tdb.db)).rejects.toThrow(
        new RegExp(`^ce_mcp_http_tool\\[10203\\]: response_mapping is the number ${BIG}, which a double`)
      );
      await tdb.pool.query(`UPDATE ce_mcp_http_tool SET response_mapping = NULL WHERE tool_id = 10203`);
    });
  });
});
