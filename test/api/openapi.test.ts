import type { FastifyInstance, HTTPMethods, InjectOptions } from 'fastify';
import Ajv from 'ajv';
import { buildApi } from '../../api/app';
import type { ConsolePorts } from '../../api/console/ports';
import type { ApiPorts } from '../../api/ports';
import { errorSchema } from '../../api/schemas/common';

const TOKEN = 'docs-token';
const ID = '3f0c1d52-8d2a-4c7e-9d41-2a6f1b9c7e10';

interface DocumentedResponse {
  description?: string;
  headers?: Record<string, { required?: boolean; schema?: object }>;
  content?: Record<string, { schema?: object }>;
}
interface Operation {
  security?: unknown[];
  requestBody?: object;
  responses: Record<string, DocumentedResponse>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

/** Every operation of the document, named `METHOD /path/{param}`. */
function operations(doc: Document): { name: string; method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, op }))
  );
}

/** A lost database, as node-postgres reports a refused connection (db/connection-loss.ts). */
const databaseDown = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** A port whose every call fails as a lost database would, but for the `fixed` members. */
function failing<T>(fixed: Record<string, unknown> = {}): T {
  const get = (_target: object, name: string | symbol) =>
    typeof name === 'string' && name in fixed ? fixed[name] : () => Promise.reject(databaseDown());
  return new Proxy({}, { get }) as T;
}

/** Every route mounted (held tools, what-if, metrics, the console), every dependency down: readiness says so. */
function apiWithDependenciesDown(): FastifyInstance {
  const ports: ApiPorts = {
    turns: failing(),
    conversations: failing(),
    config: failing(),
    readiness: { check: async () => ({ checks: { database: 'unreachable', temporal: 'ok', worker: 'ok' } }) },
    whatif: failing(),
    heldTools: failing(),
  };
  const console = failing<ConsolePorts>({ temporalUi: null, inspector: failing() });
  const metrics = () => Promise.reject(databaseDown());
  return buildApi({ ports, apiToken: TOKEN, messageMaxBytes: 8192, logLevel: 'silent', metrics, console });
}

/** The routes Fastify serves, as `METHOD /path/{param}`, read from its route tree (`printRoutes`). */
function servedRoutes(app: FastifyInstance): string[] {
  const prefixes: string[] = [];
  const served: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!node) continue;
    prefixes.length = (node[1] ?? '').length / 4;
    prefixes.push(node[2] ?? '');
    const path = prefixes.join('').replace(/:([A-Za-z]+)/g, '{$1}');
    for (const method of (node[3] ?? '').split(', ').filter((m) => m !== '' && m !== 'HEAD')) {
      served.push(`${method} ${path}`);
    }
  }
  return served;
}

/** The console's files and Swagger UI with the document itself: pages, not API routes. */
const isStaticPage = (route: string) => /^GET \/(console|docs)(\/|$)/.test(route);

/** A well-formed request for each route: its path parameters by name, and what else the route requires. */
const PATH_PARAMS: Record<string, string> = { id: ID, n: '2', workflowId: `turn-${ID}-2`, action: 'approve' };
const REQUESTS: Record<string, { query?: string; body?: object }> = {
  'POST /api/v1/conversation/message': { body: { message: 'hello' } },
  'POST /api/v1/conversation/{id}/turns/{n}/approval': { body: { decision: 'approve', callIndex: 1 } },
  'POST /api/v1/admin/turns/{workflowId}/held-tool': { body: { action: 'skip' } },
  'POST /api/v1/console/turns/{workflowId}/actions/{action}': { body: { callIndex: 1 } },
  'GET /api/v1/whatif': { query: `?conversation=${ID}&config=current` },
};

/**
 * A well-formed request to the operation `name`, with the token; `sent` replaces the Authorization header (none
 * when undefined) or the body (JSON text, as sent on the wire).
 */
function requestFor(
  name: string,
  method: string,
  path: string,
  sent: { authorization?: string; body?: string } = { authorization: `Bearer ${TOKEN}` }
): InjectOptions {
  const example = REQUESTS[name] ?? {};
  const url = path.replace(/\{([^}]+)\}/g, (_all, param: string) => PATH_PARAMS[param] ?? param);
  const body = sent.body ?? (example.body ? JSON.stringify(example.body) : undefined);
  return {
    method: method.toUpperCase() as HTTPMethods,
    url: `${url}${example.query ?? ''}`,
    headers: {
      ...(sent.authorization === undefined ? {} : { authorization: sent.authorization }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: body }),
  };
}

/** The routes that reach no dependency, and /readyz, which says what is down in its own body. */
const ANSWER_WITHOUT_DEPENDENCIES = ['GET /healthz', 'GET /readyz', 'GET /api/v1/console/meta'];

/** The response the document gives for `status`: the exact one, else its range (5XX). */
const documentedFor = (op: Operation, status: number): DocumentedResponse | undefined =>
  op.responses[String(status)] ?? op.responses[`${Math.floor(status / 100)}XX`];

const ajv = new Ajv({ strict: false });

/** What is wrong with `value` by the documented `schema` (ajv's errors), null when it conforms. */
function schemaErrors(schema: object, value: unknown): unknown {
  const validate = ajv.compile(schema);
  validate(value);
  return validate.errors ?? null;
}

/** Every `type` in a schema, at any depth (OpenAPI 3.0 has no type arrays: `nullable` instead). */
function typesIn(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(typesIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'type' && (typeof inner === 'string' || Array.isArray(inner)) ? [inner] : typesIn(inner)
  );
}

/**
 * The OpenAPI document against the routes: every route Fastify serves (but the static pages) is documented, each
 * documents the error envelope of the one error handler (4XX, 500, 503), and each route's answer with its
 * dependencies down is a response it documents, in the documented shape.
 */
describe('the OpenAPI document (api/openapi.ts), walked route by route', () => {
  let app: FastifyInstance;
  let doc: Document;
  beforeAll(async () => {
    app = apiWithDependenciesDown();
    doc = (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
  });
  afterAll(async () => app?.close());

  it('documents the optional routes too, and only routes the API mounts', () => {
    const documented = operations(doc).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(documented).toEqual(
      expect.arrayContaining([
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
        'GET /api/v1/admin/turns/held',
        'POST /api/v1/admin/turns/{workflowId}/held-tool',
        'GET /api/v1/whatif',
        'GET /api/v1/console/turns/{workflowId}',
      ])
    );
    for (const { method, path } of operations(doc)) {
      const url = path.replace(/\{([^}]+)\}/g, ':$1');
      expect([method, path, app.hasRoute({ method: method.toUpperCase() as HTTPMethods, url })]).toEqual([
        method,
        path,
        true,
      ]);
    }
  });

  it('gives every route a documented success response with its media type and schema', () => {
    for (const { method, path, op } of operations(doc)) {
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
    for (const { method, path, op } of operations(doc)) {
      for (const status of Object.keys(op.responses)) {
        expect([method, path, status]).toEqual([method, path, expect.stringMatching(/^([1-5](\d\d|XX)|default)$/)]);
      }
    }
    expect(doc.paths['/api/v1/conversation/message']?.['post']?.responses).toHaveProperty('4XX');
  });

  it('uses OpenAPI 3.0 schemas: one type per schema, nullable for null', () => {
    for (const type of typesIn(doc.paths)) expect(type).toEqual(expect.any(String));
  });

  it('marks open (security: []) exactly the routes that answer without the token, while the rest need it', async () => {
    expect(doc).toMatchObject({ security: [{ bearer: [] }] });
    const open: string[] = [];
    for (const { method, path, op } of operations(doc)) {
      const url = path.replace(/\{[^}]+\}/g, 'x');
      const res = await app.inject({ method: method.toUpperCase() as HTTPMethods, url });
      const needsToken = res.statusCode === 401;
      expect([method, path, op.security]).toEqual([method, path, needsToken ? undefined : []]);
      if (!needsToken) open.push(path);
    }
    expect(open).toEqual(['/healthz']);
  });

  it('documents every route Fastify serves but the static pages', () => {
    const documented = operations(doc).map(({ name }) => name);
    expect(
      servedRoutes(app)
        .filter((route) => !isStaticPage(route))
        .sort()
    ).toEqual([...documented].sort());
  });

  it("documents on every route the error handler's envelope for 4XX, 500 and 503 (/readyz: its own 503)", () => {
    for (const { name, op } of operations(doc)) {
      for (const status of ['4XX', '500', ...(name === 'GET /readyz' ? [] : ['503'])]) {
        const schema = op.responses[status]?.content?.['application/json']?.schema;
        expect({ name, status, schema }).toEqual({ name, status, schema: errorSchema });
      }
      expect({ name, says: op.responses['503']?.description }).toEqual({
        name,
        says: expect.stringMatching(name === 'GET /readyz' ? /not ok/ : /DATABASE_UNREACHABLE.*API_STOPPING/),
      });
    }
  });

  it('names WORKER_UNAVAILABLE exactly where a decision is sent to a worker', () => {
    const naming = operations(doc).filter(({ op }) => op.responses['503']?.description?.includes('WORKER_UNAVAILABLE'));
    expect(naming.map(({ name }) => name).sort()).toEqual([
      'POST /api/v1/admin/turns/{workflowId}/held-tool',
      'POST /api/v1/console/turns/{workflowId}/actions/{action}',
      'POST /api/v1/conversation/{id}/turns/{n}/approval',
    ]);
  });

  it.each([
    ['no token', undefined, 'Bearer'],
    ['another token', 'Bearer nope', 'Bearer error="invalid_token"'],
  ])('answers every guarded route, sent %s, with the 401 it documents', async (_sent, authorization, challenge) => {
    for (const { name, method, path, op } of operations(doc)) {
      const guarded = op.security === undefined;
      expect({ name, guarded, has401: !!op.responses['401'] }).toEqual({ name, guarded, has401: guarded });
      if (!guarded) continue;
      const res = await app.inject(requestFor(name, method, path, { authorization }));
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

  it.each([
    ['a key given twice', '{"a":1,"a":2}', 'MALFORMED_BODY'],
    ['a number a double does not hold', '{"a":1e400}', 'INEXACT_NUMBER'],
  ])('answers %s with the 400 it documents, on exactly the routes that take a JSON body', async (_loss, text, code) => {
    const naming = operations(doc).filter(({ op }) => op.responses['400']?.description?.includes(code));
    const takingBody = operations(doc).filter(({ op }) => op.requestBody);
    expect(naming.map(({ name }) => name)).toEqual(takingBody.map(({ name }) => name));
    expect(takingBody.length).toBeGreaterThan(0);
    for (const { name, method, path, op } of takingBody) {
      const res = await app.inject(requestFor(name, method, path, { authorization: `Bearer ${TOKEN}`, body: text }));
      expect({ name, status: res.statusCode, error: res.json().error }).toEqual({
        name,
        status: 400,
        error: expect.objectContaining({ code, details: { field: 'a' } }),
      });
      const schema = op.responses['400']?.content?.['application/json']?.schema ?? {};
      expect({ name, errors: schemaErrors(schema, res.json()) }).toEqual({ name, errors: null });
    }
  });

  it('answers each route, with the database down, with a response it documents, in its documented shape', async () => {
    const unavailable: string[] = [];
    for (const { name, method, path, op } of operations(doc)) {
      const res = await app.inject(requestFor(name, method, path));
      const documented = documentedFor(op, res.statusCode);
      expect({ name, status: res.statusCode, documented: !!documented }).toEqual({
        name,
        status: res.statusCode,
        documented: true,
      });
      const schema = documented?.content?.['application/json']?.schema;
      if (schema) expect({ name, errors: schemaErrors(schema, res.json()) }).toEqual({ name, errors: null });
      if (res.statusCode === 503 && res.json().error?.code === 'DATABASE_UNREACHABLE') unavailable.push(name);
    }
    const documented = operations(doc).map(({ name }) => name);
    expect(unavailable.sort()).toEqual(documented.filter((name) => !ANSWER_WITHOUT_DEPENDENCIES.includes(name)).sort());
  });
});
