/**
 * checkJsonSchema compiles schemas without an `$id` on one shared ajv instance (a new one compiles the
 * meta-schema first): what one schema registers must never change the verdict on the next.
 */
import { checkJsonSchema } from '../../../../core/config/validation/schema-checks';

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
