import { getTableColumns, getTableName } from 'drizzle-orm';
import { KEY_TEXT_MAX_CHARACTERS, columnValueProblem, keyTextColumns } from '../../db/config/yaml-columns';
import { yamlToConfig } from '../../db/config/yaml-tree';
import * as t from '../../db/schema';
import { SEED_CREATED_AT } from '../../db/seed/builders';
import { CONFIG_TABLES } from '../../db/seed/seed';

const createdAt = getTableColumns(t.ceIntent).createdAt;

/** db/config/yaml-columns.ts: what a YAML value must be to go into its column. */
describe('YAML column values', () => {
  it.each([
    '2026-01-31T12:00:00.000Z',
    '2028-02-29T00:00:00.000Z',
    '2026-01-31T12:00Z',
    '2026-01-31 12:00:00Z',
    '2026-01-31T12:00:00+02:00',
    '2026-01-31T12:00:00-0530',
    '2026-12-31T23:59:59.999Z',
    '0001-01-01T00:00:00.000Z',
    '0001-01-01T00:00:00-01:00',
    '9999-12-31T23:59:59.999Z',
    '9999-12-31T23:59:59.999+01:00',
  ])('takes the timestamp %s', (value) => {
    expect(columnValueProblem(createdAt, value)).toBeNull();
  });

  it.each([
    ['2026-02-30T00:00:00.000Z', 'no such day or time'],
    ['2027-02-29T00:00:00.000Z', 'no such day or time'],
    ['2026-04-31', 'no such day or time'],
    ['2026-01-31T24:00:00.000Z', 'no such day or time'],
    ['2026-01-31T12:60:00.000Z', 'no such day or time'],
    ['2026-01-31T12:00:60.000Z', 'no such day or time'],
    ['2026-13-01T00:00:00.000Z', 'no such day or time'],
    ['2026-01-31T12:00:00.000Z trailing', null],
    ['2026-01-31Tnoon', null],
    ['January 31, 2026', null],
    ['2026-01-31T12:00:00.1234Z', null],
    ['2026-01-31T12:00:00+02', null],
    ['2026-01-01 00:00:00', 'with a time and its zone'],
    ['2026-01-31T12:00', 'with a time and its zone'],
    ['2026-01-31', 'with a time and its zone'],
    // PostgreSQL refused these at config apply, after config validate had passed them.
    ['0000-01-01T00:00:00.000Z', 'an instant from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z'],
    ['0001-01-01T00:00:00+01:00', 'an instant from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z'],
    ['9999-12-31T23:59:59.999-01:00', 'an instant from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z'],
  ])('refuses the timestamp %s', (value, why) => {
    const problem = columnValueProblem(createdAt, value);
    expect(problem).toMatch(/^created_at must be a timestamp such as 2026-01-31T12:00:00\.000Z/);
    if (why) expect(problem).toContain(why);
  });

  it('reads a created_at as the instant the database stores, and one left out as the packs fixed one', () => {
    const intents = [
      '- intent_code: A\n  description: a\n  created_at: 2026-01-31 12:00:00+02:00\n',
      '- intent_code: B\n  description: b\n  created_at: 2026-01-31T12:00Z\n',
      '- intent_code: C\n  description: c\n',
      '- intent_code: D\n  description: d\n  created_at: null\n',
    ].join('');
    const { rows, errors } = yamlToConfig(new Map([['ce_intent.yaml', intents]]));
    expect(errors).toEqual([]);
    // The row types leave created_at out where the engine never reads it; the rows carry it all the same.
    expect(rows.intents.map((i) => (i as unknown as { createdAt: string }).createdAt)).toEqual([
      '2026-01-31T10:00:00.000Z',
      '2026-01-31T12:00:00.000Z',
      SEED_CREATED_AT,
      SEED_CREATED_AT,
    ]);
  });

  it('limits each text column an index holds, and only those', () => {
    const keys = Object.fromEntries(
      CONFIG_TABLES.map(([, table]) => [getTableName(table), [...keyTextColumns(table)]])
    );
    expect(Object.fromEntries(Object.entries(keys).filter(([, columns]) => columns.length > 0))).toEqual({
      ce_config: ['config_type', 'config_key'],
      ce_intent: ['intent_code'],
      ce_mcp_tool: ['tool_code'],
      ce_semantic_concept: ['concept_key'],
      ce_semantic_entity: ['entity_key'],
      ce_semantic_query_class: ['query_class_key'],
    });
  });

  it('refuses a key longer than KEY_TEXT_MAX_CHARACTERS, counted in characters, in validate', () => {
    const fits = '😀'.repeat(KEY_TEXT_MAX_CHARACTERS);
    const intent = (code: string) =>
      `- intent_code: '${code}'\n  description: long\n  created_at: 2026-01-31T00:00:00.000Z\n`;
    expect(yamlToConfig(new Map([['ce_intent.yaml', intent(fits)]])).errors).toEqual([]);
    const { errors } = yamlToConfig(new Map([['ce_intent.yaml', intent('A'.repeat(9000))]]));
    expect(errors).toEqual([
      {
        file: 'ce_intent.yaml',
        message: expect.stringMatching(
          /^row 1: intent_code must be at most 256 characters, as an index holds it \(9000 characters\), got "A{40}…"$/
        ),
      },
    ]);
    // A long text in a column no index holds is the author's to write.
    const description = `- intent_code: FAQ\n  description: '${'A'.repeat(9000)}'\n`;
    expect(yamlToConfig(new Map([['ce_intent.yaml', description]])).errors).toEqual([]);
  });
});

/** A row that leaves out every column with a JSON (array or object) default, per table that has one. */
const ROWS_WITHOUT_JSON_DEFAULTS: Record<string, string> = {
  ce_mcp_http_tool: '- tool_id: 7\n  url_template: https://example.test/x\n',
};

function jsonDefaultColumns(): { table: string; field: string; value: unknown }[] {
  return CONFIG_TABLES.flatMap(([, table]) =>
    Object.entries(getTableColumns(table))
      .filter(([, column]) => column.hasDefault && typeof column.default === 'object' && column.default !== null)
      .filter(
        ([, column]) => Array.isArray(column.default) || Object.getPrototypeOf(column.default) === Object.prototype
      )
      .map(([field, column]) => ({ table: getTableName(table), field, value: column.default }))
  );
}

describe('YAML columns left out', () => {
  it('has a row without them for every table with a JSON default', () => {
    const tables = [...new Set(jsonDefaultColumns().map((c) => c.table))];
    expect(tables).toEqual(Object.keys(ROWS_WITHOUT_JSON_DEFAULTS));
  });

  it.each(jsonDefaultColumns())(
    '$table column $field takes its JSON default, a copy per row',
    ({ table, field, value }) => {
      const yaml = ROWS_WITHOUT_JSON_DEFAULTS[table] as string;
      const twice = yaml + yaml.replace('tool_id: 7', 'tool_id: 8');
      const { rows, errors } = yamlToConfig(new Map([[`${table}.yaml`, twice]]));
      expect(errors).toEqual([]);
      const [key] = CONFIG_TABLES.find(([, t]) => getTableName(t) === table) as [string, unknown];
      const [first, second] = (rows as unknown as Record<string, Record<string, unknown>[]>)[key] as Record<
        string,
        unknown
      >[];
      expect(first?.[field]).toEqual(value);
      expect(first?.[field]).not.toBe(second?.[field]);
    }
  );
});
