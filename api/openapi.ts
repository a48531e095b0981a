import type { FastifyInstance, RouteShorthandOptions } from 'fastify';

interface DocumentedRoute {
  method: string;
  url: string;
  summary: string;
  schema: Record<string, unknown>;
}

/** Collects routes as they are registered so the OpenAPI document is built from the same schemas. */
export class OpenApiRegistry {
  private readonly routes: DocumentedRoute[] = [];

  add(method: string, url: string, summary: string, schema: RouteShorthandOptions['schema']): void {
    this.routes.push({ method: method.toLowerCase(), url, summary, schema: (schema ?? {}) as Record<string, unknown> });
  }

  document(version: string): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const route of this.routes) {
      const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}');
      paths[path] = { ...(paths[path] ?? {}), [route.method]: operationOf(route) };
    }
    return {
      openapi: '3.0.3',
      info: { title: 'ConvEngine HTTP gateway', version },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ bearer: [] }],
      paths,
    };
  }
}

function operationOf(route: DocumentedRoute): Record<string, unknown> {
  const { schema } = route;
  const parameters: unknown[] = [];
  for (const [where, key] of [
    ['path', 'params'],
    ['query', 'querystring'],
    ['header', 'headers'],
  ] as const) {
    const s = schema[key] as { properties?: Record<string, unknown>; required?: string[] } | undefined;
    for (const [name, prop] of Object.entries(s?.properties ?? {})) {
      parameters.push({ name, in: where, required: where === 'path' || !!s?.required?.includes(name), schema: prop });
    }
  }
  const responses: Record<string, unknown> = {};
  for (const [status, body] of Object.entries((schema['response'] as Record<string, unknown>) ?? {})) {
    responses[status] = { description: `HTTP ${status}`, content: { 'application/json': { schema: body } } };
  }
  const op: Record<string, unknown> = { summary: route.summary, parameters, responses };
  const body = schema['body'] as { nullable?: boolean } | undefined;
  // A nullable body schema is an optional body (the admin routes that act on the path alone).
  if (body) op['requestBody'] = { required: body.nullable !== true, content: { 'application/json': { schema: body } } };
  return op;
}

/** Registers a route on Fastify and documents it. */
export function route(
  app: FastifyInstance,
  registry: OpenApiRegistry,
  def: {
    method: 'GET' | 'POST';
    url: string;
    summary: string;
    schema?: RouteShorthandOptions['schema'];
    /** Default true: Fastify answers HEAD for a GET route by running it. */
    exposeHeadRoute?: boolean;
  },
  handler: Parameters<FastifyInstance['route']>[0]['handler']
): void {
  registry.add(def.method, def.url, def.summary, def.schema);
  const head = def.exposeHeadRoute === false ? { exposeHeadRoute: false } : {};
  app.route({ method: def.method, url: def.url, schema: def.schema, handler, ...head });
}
