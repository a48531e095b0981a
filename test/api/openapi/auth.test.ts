import type { HTTPMethods } from 'fastify';
import { documentedApi, operations, requestFor, schemaErrors } from './document';

/** Which routes need the token, as the document says and as the API answers: a 401 in its documented shape. */
describe('the OpenAPI document (api/openapi.ts): the token', () => {
  const api = documentedApi();

  it('marks open (security: []) exactly the routes that answer without the token, while the rest need it', async () => {
    expect(api.doc).toMatchObject({ security: [{ bearer: [] }] });
    const open: string[] = [];
    for (const { method, path, op } of operations(api.doc)) {
      const url = path.replace(/\{[^}]+\}/g, 'x');
      const res = await api.app.inject({ method: method.toUpperCase() as HTTPMethods, url });
      const needsToken = res.statusCode === 401;
      expect([method, path, op.security]).toEqual([method, path, needsToken ? undefined : []]);
      if (!needsToken) open.push(path);
    }
    expect(open).toEqual(['/healthz', '/readyz']);
  });

  it.each([
    ['no token', undefined, 'Bearer'],
    ['another token', 'Bearer nope', 'Bearer error="invalid_token"'],
  ])('answers every guarded route, sent %s, with the 401 it documents', async (_sent, authorization, challenge) => {
    for (const { name, method, path, op } of operations(api.doc)) {
      const guarded = op.security === undefined;
      expect({ name, guarded, has401: !!op.responses['401'] }).toEqual({ name, guarded, has401: guarded });
      if (!guarded) continue;
      const res = await api.app.inject(requestFor(name, method, path, { authorization }));
      const documented = op.responses['401'];
      const header = documented?.headers?.['WWW-Authenticate'];
      expect({
        name,
        status: res.statusCode,
        challenge: res.headers['www-authenticate'],
        code: res.json().error?.code,
        headerRequired: header?.required,
        headerErrors: schemaErrors(header?.schema ?? {}, res.headers['www-authenticate']),
        bodyErrors: schemaErrors(documented?.content?.['application/json']?.schema ?? {}, res.json()),
      }).toEqual({
        name,
        status: 401,
        challenge,
        code: 'UNAUTHORIZED',
        headerRequired: true,
        headerErrors: null,
        bodyErrors: null,
      });
    }
  });
});
