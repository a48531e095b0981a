import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { isOpenPath, routeAccess, type RouteAccess } from './auth';
import {
  badRequestResponse,
  errorResponses,
  HOST_NOT_ALLOWED,
  OPERATOR_TOKEN_REQUIRED,
  UNAUTHORIZED,
  type RouteInputs,
} from './error-responses';
import { checksHost } from './host-check';
import { turnIdParam } from './turns/turn-id';
import type { TurnRequestTest } from '../observability/turn-metrics';

/**
 * The API's two bearer tokens as OpenAPI names them (api/auth.ts): the same document whichever are set, so that it
 * tells no one which are.
 */
const SECURITY_SCHEMES = {
  apiToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "API_TOKEN, the gateway's token: it reaches the routes an end user's gateway needs (send a message, read the " +
      'conversation). With OPERATOR_API_TOKEN unset it is the only token and reaches every route: give it as ' +
      'operatorToken too.',
  },
  operatorToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "OPERATOR_API_TOKEN, the operator's token: it reaches every route, and it alone the operator's (the console, " +
      'audit rows and their stream, approval decisions, admin, what-if, metrics; API_TOKEN there is 403 ' +
      'OPERATOR_TOKEN_REQUIRED). Unset: API_TOKEN.',
  },
} as const;

/** An operation's `security` by who its route answers (routeAccess): either token satisfies a gateway's route. */
const SECURITY_BY_ACCESS: Record<RouteAccess, Record<string, string[]>[]> = {
  open: [],
  gateway: [{ apiToken: [] }, { operatorToken: [] }],
  operator: [{ operatorToken: [] }],
};

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
    const route = { method: method.toLowerCase(), url, summary, schema: (schema ?? {}) as Record<string, unknown> };
    const id = operationIdOf(route);
    // Generated clients name their methods by it: two routes of one id would make one of them unreachable there.
    if (this.routes.some((known) => operationIdOf(known) === id)) throw new Error(`operationId ${id} is taken`);
    this.routes.push(route);
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
      components: { securitySchemes: SECURITY_SCHEMES },
      // Each operation says which token it takes (SECURITY_BY_ACCESS); a route that did not would be an operator's.
      security: SECURITY_BY_ACCESS.operator,
      paths,
    };
  }
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * An operation's id, from its method and path alone, so it stays the same from release to release while the route
 * does: `GET /api/v1/conversation/:id` is getConversationById, `POST /api/v1/admin/turns/:workflowId/held-tool`
 * postAdminTurnsByWorkflowIdHeldTool.
 */
export function operationIdOf(route: { method: string; url: string }): string {
  const words = route.url
    .replace(/^\/api\/v1\//, '/')
    .split(/[/-]/)
    .filter((word) => word !== '')
    .map((word) => (word.startsWith(':') ? `By${capitalized(word.slice(1))}` : capitalized(word)));
  return `${route.method.toLowerCase()}${words.join('')}`;
}

function operationOf(route: DocumentedRoute): Record<string, unknown> {
  const { schema } = route;
  const op: Record<string, unknown> = {
    operationId: operationIdOf(route),
    summary: route.summary,
    parameters: parametersOf(schema),
    responses: responsesOf((schema['response'] ?? {}) as Record<string, ResponseSchema>),
  };
  const body = schema['body'] as { nullable?: boolean } | undefined;
  // A nullable body schema is an optional body (the admin routes that act on the path alone).
  if (body) op['requestBody'] = { required: body.nullable !== true, content: { 'application/json': { schema: body } } };
  op['security'] = SECURITY_BY_ACCESS[routeAccess(route.url)];
  return op;
}

function parametersOf(schema: Record<string, unknown>): unknown[] {
  const parameters: unknown[] = [];
  for (const [where, key] of [
    ['path', 'params'],
    ['query', 'querystring'],
    ['header', 'headers'],
  ] as const) {
    const s = schema[key] as { properties?: Record<string, { description?: string }>; required?: string[] } | undefined;
    for (const [name, { description, ...prop }] of Object.entries(s?.properties ?? {})) {
      const required = where === 'path' || !!s?.required?.includes(name);
      // What a parameter means is the parameter's description in OpenAPI, where tools show it.
      parameters.push({
        name,
        in: where,
        ...(description !== undefined ? { description } : {}),
        required,
        schema: prop,
      });
    }
  }
  return parameters;
}

/**
 * A route's response schema: JSON by default, or Fastify's per-media-type form (`content`) for text and SSE; its
 * `headers` are the response's headers, as OpenAPI names them.
 */
interface ResponseSchema {
  description?: string;
  content?: Record<string, { schema: unknown }>;
  headers?: Record<string, unknown>;
}

/**
 * Fastify takes a status range as `4xx` or `4XX` (it lower-cases the keys), OpenAPI 3 only as `4XX`: a tool
 * reading the document does not know `4xx`, so the document upper-cases whatever a route wrote.
 */
function responsesOf(response: Record<string, ResponseSchema>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, { description, content, headers, ...schema }] of Object.entries(response)) {
    const key = status.replace(/^([1-5])xx$/i, '$1XX');
    // A JSON schema's description says when the response comes: the response's, not repeated in its schema.
    responses[key] = {
      description: description ?? `HTTP ${key}`,
      ...(headers ? { headers } : {}),
      content: content ?? { 'application/json': { schema } },
    };
  }
  return responses;
}

/** Registers a route on Fastify and documents it. */
export function route(
  app: FastifyInstance,
  registry: OpenApiRegistry,
  def: {
    method: 'GET' | 'POST' | 'DELETE';
    url: string;
    summary: string;
    schema?: RouteShorthandOptions['schema'];
    /** Default true: Fastify answers HEAD for a GET route by running it. */
    exposeHeadRoute?: boolean;
    /** The route's own checks of the parsed request, run before the schema's, which would answer less precisely. */
    checkBeforeSchema?: (request: FastifyRequest) => void;
    /** Its requests (or those it names) are turn requests, timed in convengine_turn_duration_seconds. */
    turnRequest?: true | TurnRequestTest;
  },
  handler: Parameters<FastifyInstance['route']>[0]['handler']
): void {
  const schema = { ...def.schema, response: withErrorResponses(def) };
  registry.add(def.method, def.url, def.summary, schema);
  const head = def.exposeHeadRoute === false ? { exposeHeadRoute: false } : {};
  const check = def.checkBeforeSchema;
  const before = check ? { preValidation: async (request: FastifyRequest) => check(request) } : {};
  const turn = def.turnRequest === true ? () => true : def.turnRequest;
  const config = turn ? { turnRequest: turn } : {};
  app.route({ method: def.method, url: def.url, schema, handler, config, ...head, ...before });
}

/** What of a request a route's schema takes: what its 400 may refuse. */
export function inputsOf(schema: RouteShorthandOptions['schema']): RouteInputs {
  const params = schema?.params as { properties?: Record<string, unknown> } | undefined;
  return {
    body: !!schema?.body,
    checked: !!(schema?.params || schema?.querystring || schema?.headers),
    query: !!schema?.querystring,
    turn: Object.values(params?.properties ?? {}).includes(turnIdParam),
  };
}

/**
 * The route's responses, then each error response it may give whose status it does not document itself: any
 * route's, the 400 of its input when it takes any, the token's 401 when the token guards it, the gateway token's 403
 * on an operator's route, the Host check's 421.
 */
function withErrorResponses(def: { url: string; schema?: RouteShorthandOptions['schema'] }): Record<string, unknown> {
  const own = (def.schema?.response ?? {}) as Record<string, unknown>;
  const documented = new Set(Object.keys(own).map((status) => status.toLowerCase()));
  const inputs = inputsOf(def.schema);
  const errors = {
    ...(inputs.body || inputs.checked ? { 400: badRequestResponse(inputs) } : {}),
    ...(isOpenPath(def.url) ? {} : UNAUTHORIZED),
    ...(routeAccess(def.url) === 'operator' ? OPERATOR_TOKEN_REQUIRED : {}),
    ...(checksHost(def.url) ? HOST_NOT_ALLOWED : {}),
    ...errorResponses,
  };
  const added = Object.entries(errors).filter(([status]) => !documented.has(status));
  return { ...own, ...Object.fromEntries(added) };
}
