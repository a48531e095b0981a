import { documentedApi, operations } from './document';

/** Every `type` in a schema, at any depth (OpenAPI 3.0 has no type arrays: `nullable` instead). */
function typesIn(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(typesIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'type' && (typeof inner === 'string' || Array.isArray(inner)) ? [inner] : typesIn(inner)
  );
}

/** Each route's responses as OpenAPI 3.0 writes them: a success with its media type, status ranges, one type. */
describe('the OpenAPI document (api/openapi.ts): the shape of its responses', () => {
  const api = documentedApi();

  it('gives every route a documented success response with its media type and schema', () => {
    for (const { method, path, op } of operations(api.doc)) {
      const success = Object.entries(op.responses).filter(([status]) => /^2(\d\d|XX)$/.test(status));
      expect([method, path, success.length > 0]).toEqual([method, path, true]);
      for (const [status, response] of success) {
        const media = Object.entries(response.content ?? {});
        expect([method, path, status, media.length > 0, !!response.description]).toEqual([
          method,
          path,
          status,
          true,
          true,
        ]);
        for (const [type, { schema }] of media)
          expect([method, path, type, schema]).toEqual([method, path, type, expect.any(Object)]);
      }
    }
  });

  it('writes status ranges as OpenAPI 3 does (4XX, 5XX), never 4xx', () => {
    for (const { method, path, op } of operations(api.doc)) {
      for (const status of Object.keys(op.responses)) {
        expect([method, path, status]).toEqual([method, path, expect.stringMatching(/^([1-5](\d\d|XX)|default)$/)]);
      }
    }
    expect(api.doc.paths['/api/v1/conversation/message']?.['post']?.responses).toHaveProperty('4XX');
  });

  it('uses OpenAPI 3.0 schemas: one type per schema, nullable for null', () => {
    for (const type of typesIn(api.doc.paths)) expect(type).toEqual(expect.any(String));
  });
});
