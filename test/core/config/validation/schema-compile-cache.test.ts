import type Ajv from 'ajv';
import type * as JsonSchema from '../../../../core/json-schema';
import { checkJsonSchema } from '../../../../core/config/validation/schema-checks';

/** How many schemas the validation's Ajv instances compiled. */
const mockCompiled = { count: 0 };
jest.mock('../../../../core/json-schema', () => {
  const actual = jest.requireActual<typeof JsonSchema>('../../../../core/json-schema');
  return {
    ...actual,
    newConfigSchemaAjv: (...args: Parameters<typeof actual.newConfigSchemaAjv>): Ajv => {
      const ajv = actual.newConfigSchemaAjv(...args);
      const compile = ajv.compile.bind(ajv);
      ajv.compile = ((schema: object) => ((mockCompiled.count += 1), compile(schema))) as Ajv['compile'];
      return ajv;
    },
  };
});

/**
 * A config store validates the whole config again on every edit; compiling the JSON Schemas is the slow part, so
 * their results are kept: a large deployment's reload after a one-row edit compiles none of the schemas it had.
 */
describe('compiled JSON Schema results', () => {
  it('are all kept for a config of 1,000 schemas, so validating it again compiles none', () => {
    const schemas = Array.from({ length: 1_000 }, (_, i) => ({
      type: 'object',
      properties: { [`field${i}`]: { type: 'string' } },
    }));
    for (const schema of schemas) expect(checkJsonSchema(schema, { requireObject: true })).toBeNull();
    const first = mockCompiled.count;
    expect(first).toBe(1_000);
    for (const schema of schemas) expect(checkJsonSchema(schema, { requireObject: true })).toBeNull();
    expect(mockCompiled.count - first).toBe(0);
  });
});
