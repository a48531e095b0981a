import Ajv, { type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';

const ROUTABLE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** A registered route: the router's path pattern as a RegExp, and its path parameters' schema. */
interface KnownRoute {
  method: string;
  pattern: RegExp;
  names: string[];
  paramsSchema: object | undefined;
  validate?: ValidateFunction;
}

/** `/api/v1/conversation/:id/stream` → a RegExp capturing `id`; `*` captures the rest. */
function patternOf(url: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = url.replace(/:([A-Za-z0-9_]+)|\*|[.+?^${}()|[\]\\]/g, (token, name?: string) => {
    if (name) names.push(name);
    else if (token === '*') names.push('*');
    else return `\\${token}`;
    return token === '*' ? '(.*)' : '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}$`), names };
}

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * The methods that work on a path: the router has a route for it, and that route's path parameters pass its
 * schema. `/api/v1/conversation/message` is a conversation id to the router's GET route, but not one that route
 * takes: only POST works there, and Allow says so. Call before any route is registered (it watches them).
 */
export function methodsThatWork(app: FastifyInstance): (path: string) => string[] {
  const routes: KnownRoute[] = [];
  const ajv = new Ajv({ strict: false, coerceTypes: false });
  app.addHook('onRoute', (options) => {
    const paramsSchema = options.schema?.params as object | undefined;
    for (const method of [options.method].flat()) routes.push({ method, ...patternOf(options.url), paramsSchema });
  });
  /** The route the router chose for `method` on `path`: the one whose path, with the router's params, is it. */
  const chosen = (method: string, path: string, params: Record<string, string | undefined>) =>
    routes.find((route) => {
      if (route.method !== method) return false;
      const match = route.pattern.exec(path);
      return match !== null && route.names.every((name, i) => decoded(match[i + 1] ?? '') === (params[name] ?? null));
    });
  const works = (method: string, path: string): boolean => {
    const found = app.findRoute({ method, url: path }) as { params: Record<string, string | undefined> } | null;
    if (!found) return false;
    const route = chosen(method, path, found.params);
    if (!route?.paramsSchema) return true;
    route.validate ??= ajv.compile(route.paramsSchema);
    return route.validate({ ...found.params });
  };
  return (path) => ROUTABLE_METHODS.filter((method) => works(method, path));
}
