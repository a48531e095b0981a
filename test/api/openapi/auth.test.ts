import type { FastifyInstance, HTTPMethods } from 'fastify';
import { apiWithDependenciesDown, documentedApi, operations, requestFor, schemaErrors, TOKEN } from './document';

/** Which routes need which token, as the document says and as the API answers: a 401 and a 403 in their shapes. */
describe('the OpenAPI document (api/openapi.ts): the tokens', () => {
  const api = documentedApi();

  it('marks open (security: []) exactly the routes that answer without a token; the rest say which token', async () => {
    expect(api.doc).toMatchObject({ security: [{ operatorToken: [] }] });
    const open: string[] = [];
    for (const { method, path, op } of operations(api.doc)) {
      const url = path.replace(/\{[^}]+\}/g, 'x');
      const res = await api.app.inject({ method: method.toUpperCase() as HTTPMethods, url });
      const needsToken = res.statusCode === 401;
      const security = needsToken ? expect.arrayContaining([{ operatorToken: [] }]) : [];
      expect([method, path, op.security]).toEqual([method, path, security]);
      if (!needsToken) open.push(path);
    }
    expect(open).toEqual(['/healthz', '/readyz']);
  });

  it.each([
    ['no token', undefined, 'Bearer'],
    ['another token', 'Bearer nope', 'Bearer error="invalid_token"'],
  ])('answers every guarded route, sent %s, with the 401 it documents', async (_sent, authorization, challenge) => {
    for (const { name, method, path, op } of operations(api.doc)) {
      const guarded = op.security?.length !== 0;
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

  describe('with OPERATOR_API_TOKEN set', () => {
    let split: FastifyInstance;
    beforeAll(() => {
      split = apiWithDependenciesDown({ apiToken: TOKEN, operatorToken: 'operator-token' });
    });
    afterAll(async () => split?.close());

    it("answers the gateway token as each route's security says: the 403 it documents where only operatorToken is", async () => {
      const gatewayRoutes: string[] = [];
      for (const { name, method, path, op } of operations(api.doc)) {
        if (op.security?.length === 0) continue;
        const takesGatewayToken = op.security?.some((scheme) => 'apiToken' in (scheme as object)) ?? false;
        if (takesGatewayToken) gatewayRoutes.push(name);
        const res = await split.inject(requestFor(name, method, path));
        const documented = op.responses['403'];
        const header = documented?.headers?.['WWW-Authenticate'];
        const refused = res.statusCode === 403;
        expect({ name, refused, documents403: !!documented }).toEqual({
          name,
          refused: !takesGatewayToken,
          documents403: !takesGatewayToken,
        });
        if (!refused) continue;
        expect({
          name,
          code: res.json().error.code,
          headerErrors: schemaErrors(header?.schema ?? {}, res.headers['www-authenticate']),
          bodyErrors: schemaErrors(documented?.content?.['application/json']?.schema ?? {}, res.json()),
        }).toEqual({ name, code: 'OPERATOR_TOKEN_REQUIRED', headerErrors: null, bodyErrors: null });
      }
      expect(gatewayRoutes).toEqual(['POST /api/v1/conversation/message', 'GET /api/v1/conversation/{id}']);
    });
  });
});
