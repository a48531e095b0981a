import type { FastifyInstance, HTTPMethods } from 'fastify';
import { documentedApi, operations } from './document';

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

/** The document against the routes: every route Fastify serves (but the static pages) is documented, and no other. */
describe('the OpenAPI document (api/openapi.ts): the routes it documents', () => {
  const api = documentedApi();

  it('documents the optional routes too, and only routes the API mounts', () => {
    const documented = operations(api.doc).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
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
    for (const { method, path } of operations(api.doc)) {
      const url = path.replace(/\{([^}]+)\}/g, ':$1');
      expect([method, path, api.app.hasRoute({ method: method.toUpperCase() as HTTPMethods, url })]).toEqual([
        method,
        path,
        true,
      ]);
    }
  });

  it('documents every route Fastify serves but the static pages', () => {
    const documented = operations(api.doc).map(({ name }) => name);
    expect(
      servedRoutes(api.app)
        .filter((route) => !isStaticPage(route))
        .sort()
    ).toEqual([...documented].sort());
  });
});
