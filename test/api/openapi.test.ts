import type { FastifyInstance, HTTPMethods } from 'fastify';
import { buildApi } from '../../api/app';
import type { ApiPorts } from '../../api/ports';
import { fakeConsolePorts, fakePorts } from '../support/fake-ports';

const TOKEN = 'docs-token';
const unused = () => Promise.reject(new Error('not used by this test'));

/** Every route mounted: held tools, what-if, metrics and the console, over ports that are never reached. */
function fullApi(): FastifyInstance {
  const ports: ApiPorts = {
    ...fakePorts({ whatif: { conversation: unused } }),
    heldTools: { list: unused, resolve: unused },
  };
  return buildApi({
    ports,
    apiToken: TOKEN,
    messageMaxBytes: 8192,
    logLevel: 'silent',
    metrics: async () => '',
    console: fakeConsolePorts(),
  });
}

interface Operation {
  security?: unknown[];
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

function operations(doc: Document): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ method, path, op }))
  );
}

/** Every `type` in a schema, at any depth (OpenAPI 3.0 has no type arrays: `nullable` instead). */
function typesIn(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(typesIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'type' && (typeof inner === 'string' || Array.isArray(inner)) ? [inner] : typesIn(inner)
  );
}

describe('the OpenAPI document (api/openapi.ts), walked route by route', () => {
  let app: FastifyInstance;
  let doc: Document;
  beforeAll(async () => {
    app = fullApi();
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
    expect(doc.paths['/api/v1/conversation/message']?.['post']?.responses).toHaveProperty('5XX');
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
});
