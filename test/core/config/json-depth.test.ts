import { MAX_CONFIG_JSON_DEPTH, OVER_DEEP_VALUE, screenConfigRows } from '../../../core/config/json-depth';
import { validateConfig } from '../../../core/config/validate';
import { formatViolation, type ConfigRows } from '../../../core/config/types';
import { canonicalJson, exceedsJsonDepth, type Json } from '../../../core/json';
import { validBaseConfig } from '../../support/config-fixtures';

/** `levels` nested arrays around 1: [[[1]]] is 3 levels. */
function nestedArrays(levels: number): Json {
  let value: Json = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** A JSON Schema whose property `deep` nests `levels` object schemas, two JSON levels each, as an author wrote. */
function deepSchema(levels: number): Json {
  let value: Json = { type: 'string' };
  for (let i = 0; i < levels; i++) value = { type: 'object', properties: { a: value } };
  return { type: 'object', properties: { customerId: { type: 'string' }, deep: value } };
}

const findings = (rows: ConfigRows) => validateConfig(rows).violations.map(formatViolation);

describe('config JSON nested too deep (core/config/json-depth.ts)', () => {
  it('counts levels as model and tool output does: 64 nested arrays are taken, 65 are not', () => {
    expect(MAX_CONFIG_JSON_DEPTH).toBe(64);
    expect(exceedsJsonDepth(nestedArrays(64), 64)).toBe(false);
    expect(exceedsJsonDepth(nestedArrays(65), 64)).toBe(true);
    expect(exceedsJsonDepth({ a: { b: nestedArrays(62) } }, 64)).toBe(false);
    expect(exceedsJsonDepth({ a: { b: nestedArrays(63) } }, 64)).toBe(true);
    expect(exceedsJsonDepth('text', 0)).toBe(false);
  });

  it('measures 200,000 levels without overflowing the stack, where the recursive canonicalJson cannot', () => {
    const deep = nestedArrays(200_000);
    expect(() => canonicalJson(deep)).toThrow(RangeError);
    expect(exceedsJsonDepth(deep, 64)).toBe(true);
  });

  it('a json_schema 5,000 schemas deep and fields_json 4,000 arrays deep are one violation each, by column', () => {
    const rows = validBaseConfig();
    const [schema] = rows.outputSchemas;
    const [entity] = rows.semanticEntities;
    if (!schema || !entity) throw new Error('fixture has no schema or entity');
    schema.jsonSchema = deepSchema(5_000) as typeof schema.jsonSchema;
    entity.fieldsJson = nestedArrays(4_000) as typeof entity.fieldsJson;
    expect(findings(rows)).toEqual([
      'ce_output_schema[1]: json_schema is JSON nested deeper than 64 levels',
      'ce_semantic_entity[1]: fields_json is JSON nested deeper than 64 levels',
    ]);
  });

  it('a json_schema as deep as the limit allows is validated as any other', () => {
    const rows = validBaseConfig();
    const [schema] = rows.outputSchemas;
    if (!schema) throw new Error('fixture has no schema');
    schema.jsonSchema = deepSchema(30) as typeof schema.jsonSchema; // 62 levels with the outer object and its properties
    expect(findings(rows)).toEqual([]);
  });

  it('screening leaves rows without a deep value as they are, and replaces only the deep column', () => {
    const rows = validBaseConfig();
    expect(screenConfigRows(rows)).toBe(rows);
    const [entity] = rows.semanticEntities;
    if (!entity) throw new Error('fixture has no entity');
    entity.fieldsJson = nestedArrays(100) as typeof entity.fieldsJson;
    const screened = screenConfigRows(rows);
    expect(screened.semanticEntities[0]).toEqual({ ...entity, fieldsJson: OVER_DEEP_VALUE });
    expect(screened.rules).toBe(rows.rules);
    expect(rows.semanticEntities[0]?.fieldsJson).not.toBe(OVER_DEEP_VALUE);
  });
});
