/**
 * What the OpenAPI document's tests (this folder) walk: the API with every route mounted and every dependency down,
 * the document it serves, its operations, and a well-formed request for each.
 */
import type { FastifyInstance, HTTPMethods, InjectOptions } from 'fastify';
import Ajv from 'ajv';
import { buildApi } from '../../../api/app';
import type { ConsolePorts } from '../../../api/console/ports';
import type { ApiPorts } from '../../../api/ports';

export const TOKEN = 'docs-token';
const ID = '3f0c1d52-8d2a-4c7e-9d41-2a6f1b9c7e10';

export interface DocumentedResponse {
  description?: string;
  headers?: Record<string, { required?: boolean; schema?: object }>;
  content?: Record<string, { schema?: object }>;
}
export interface Operation {
  operationId?: string;
  security?: unknown[];
  requestBody?: object;
  responses: Record<string, DocumentedResponse>;
}
export type Document = { paths: Record<string, Record<string, Operation>> };

/** Every operation of the document, named `METHOD /path/{param}`. */
export function operations(doc: Document): { name: string; method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, op }))
  );
}

/** A lost database, as node-postgres reports a refused connection (db/connection-loss.ts). */
const databaseDown = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

const databaseIsDown = () => Promise.reject(databaseDown());

/** A port whose every call fails as a lost database would, but for the `fixed` members. */
function failing<T>(fixed: Record<string, unknown> = {}): T {
  const get = (_target: object, name: string | symbol) =>
    typeof name === 'string' && name in fixed ? fixed[name] : () => Promise.reject(databaseDown());
  return new Proxy({}, { get }) as T;
}

/** Members some ports answer with instead of failing: each port's by name, the console's as `console`. */
export type FixedMembers = Partial<Record<keyof ApiPorts | 'console' | 'inspector', Record<string, unknown>>>;

/**
 * Every route mounted (held tools, what-if, metrics, the console), every dependency down: readiness says so (unless
 * `fixed.readiness` says otherwise), and every port fails as a lost database would but for the members `fixed` gives. Its token is TOKEN unless `tokens`
 * says otherwise.
 */
export function apiWithDependenciesDown(
  tokens: { apiToken?: string; operatorToken?: string } = { apiToken: TOKEN },
  fixed: FixedMembers = {}
): FastifyInstance {
  const ports: ApiPorts = {
    turns: failing(fixed.turns),
    conversations: failing(fixed.conversations),
    config: failing(fixed.config),
    readiness: {
      check: async () => ({ checks: { database: 'unreachable', temporal: 'ok', worker: 'ok' } }),
      ...(fixed.readiness as Partial<ApiPorts['readiness']> | undefined),
    },
    whatif: failing(fixed.whatif),
    heldTools: failing(fixed.heldTools),
    approvals: failing(fixed.approvals),
    eraseConversation: databaseIsDown,
  };
  const console = failing<ConsolePorts>({ temporalUi: null, inspector: failing(fixed.inspector), ...fixed.console });
  const metrics = databaseIsDown;
  return buildApi({ ports, ...tokens, messageMaxBytes: 8192, logLevel: 'silent', metrics, console });
}

/** The API with its dependencies down and the document it serves, read once for a file's tests. */
export function documentedApi(): { app: FastifyInstance; doc: Document } {
  const api = {} as { app: FastifyInstance; doc: Document };
  beforeAll(async () => {
    api.app = apiWithDependenciesDown();
    api.doc = (await api.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
  });
  afterAll(async () => api.app?.close());
  return api;
}

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
export function requestFor(
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

const ajv = new Ajv({ strict: false });

/** What is wrong with `value` by the documented `schema` (ajv's errors), null when it conforms. */
export function schemaErrors(schema: object, value: unknown): unknown {
  const validate = ajv.compile(schema);
  validate(value);
  return validate.errors ?? null;
}
