/**
 * checkJsonSchema compiles schemas without an `$id` on one shared ajv instance (a new one compiles the
 * meta-schema first): what one schema registers must never change the verdict on the next.
 */
import { checkJsonSchema } from '../../../../core/config/validation/schema-checks';
import { at, itReportsExactly, type ValidateCase } from '../../../support/validate-cases';

const object = { requireObject: true };

describe('checkJsonSchema on a shared compiler', () => {
  it('gives each schema the verdict a fresh compiler would, whatever came before', () => {
    const withDefinitions = {
      type: 'object',
      definitions: { id: { type: 'string', pattern: '^[A-Z]+$' } },
      properties: { a: { $ref: '#/definitions/id' } },
    };
    expect(checkJsonSchema(withDefinitions, object)).toBeNull();
    // The same local reference name in another schema resolves against that schema's own definitions.
    const otherDefinitions = {
      type: 'object',
      definitions: { id: { type: 'integer' } },
      properties: { b: { $ref: '#/definitions/id' } },
    };
    expect(checkJsonSchema(otherDefinitions, object)).toBeNull();
    expect(checkJsonSchema({ type: 'object', properties: { c: { $ref: '#/definitions/missing' } } }, object)).toMatch(
      /is not a valid JSON Schema: can't resolve reference #\/definitions\/missing/
    );
    expect(checkJsonSchema({ type: 'object', properties: { d: { type: 'no-such-type' } } }, object)).toMatch(
      /is not a valid JSON Schema/
    );
    expect(
      checkJsonSchema({ type: 'object', properties: { e: { type: 'string', format: 'email' } } }, object)
    ).toBeNull();
  });

  it('lets two schemas carry the same $id, and resolves nothing from an earlier schema', () => {
    const first = { $id: 'https://example.test/claim.json', type: 'object', properties: { x: { type: 'string' } } };
    const second = { $id: 'https://example.test/claim.json', type: 'object', properties: { y: { type: 'number' } } };
    expect(checkJsonSchema(first, object)).toBeNull();
    expect(checkJsonSchema(second, object)).toBeNull();
    // An external reference to that $id is unresolvable on its own, though an earlier schema declared it.
    expect(
      checkJsonSchema({ type: 'object', properties: { z: { $ref: 'https://example.test/claim.json' } } }, object)
    ).toMatch(/can't resolve reference/);
  });
});

const cases: ValidateCase[] = [
  {
    name: 'invalid JSON schema',
    breakIt: (r) => void (at(r.outputSchemas, 0).jsonSchema = { type: 'object', properties: { a: { type: 'strin' } } }),
    violations: ['ce_output_schema[1]'],
    reason: /not a valid JSON Schema/,
  },
  {
    name: 'output schema that is not an object schema',
    breakIt: (r) => void (at(r.outputSchemas, 0).jsonSchema = { type: 'array' }),
    violations: ['ce_output_schema[1]'],
    reason: /must describe an object/,
  },
  {
    name: 'output schema declaring a context key the engine owns',
    breakIt: (r) => {
      const schema = at(r.outputSchemas, 0).jsonSchema as { properties: Record<string, unknown> };
      schema.properties['intent_lock'] = { type: 'object' };
      schema.properties['mcp'] = { type: 'string' };
    },
    violations: ['ce_output_schema[1]'],
    reason:
      /json_schema declares "intent_lock", "mcp", a context key no model writes \(mcp, intent_lock, .*, approval\): .*rename/,
  },
  {
    name: 'output schema whose fields no SCHEMA_JSON prompt template extracts',
    breakIt: (r) => void (at(r.promptTemplates, 0).enabled = false),
    violations: ['ce_output_schema[1]'],
    reason:
      /^ce_output_schema\[1\]: has no enabled ce_prompt_template with output_format=SCHEMA_JSON for intent LOAN_APPLICATION \/ state ELIGIBILITY_GATE \(or ANY\): .*PROMPT_TEMPLATE_MISSING/,
  },
  {
    name: "output schema whose intent's SCHEMA_JSON template is scoped to another state",
    breakIt: (r) => void (at(r.promptTemplates, 0).stateCode = 'COMPLETED'),
    violations: ['ce_output_schema[1]'],
    reason: /for intent LOAN_APPLICATION \/ state ELIGIBILITY_GATE \(or ANY\)/,
  },
  {
    name: 'output schema whose only template for its scope is not SCHEMA_JSON',
    breakIt: (r) => void (at(r.promptTemplates, 0).outputFormat = 'JSON'),
    violations: ['ce_output_schema[1]'],
    reason: /output_format=SCHEMA_JSON/,
  },
  {
    name: 'output schema extracted with a SCHEMA_JSON template scoped ANY / ANY',
    breakIt: (r) => void Object.assign(at(r.promptTemplates, 0), { intentCode: 'ANY', stateCode: 'ANY' }),
    violations: [],
  },
  {
    name: 'DB tool param_schema that is not a schema',
    breakIt: (r) =>
      void (at(r.mcpDbTools, 0).paramSchema = { type: 'object', properties: { customer_id: { type: 42 } } }),
    violations: ['ce_mcp_db_tool[1]'],
    reason: /param_schema/,
  },
];

describe('validateConfig: json schemas of config rows (core/config/validation/schema-checks.ts)', () => {
  itReportsExactly(cases);
});
