import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors';

/**
 * Liveness and readiness are open, as the worker's probes are: a load balancer's or Kubernetes' probe sends no token.
 * Readiness says only `ok` or a reason per check (never an error text, a host, a role or a secret) and its answers are
 * cached for a second (api/server.ts), so an open probe costs the dependencies no more than a polling one.
 */
const OPEN_ROUTES = new Set(['/healthz', '/readyz', '/console', '/docs']);
/**
 * Static pages and the API description: the console's files (which ask for the token and send it on
 * every call) and Swagger UI with the OpenAPI document. No data and no action is under them.
 */
const OPEN_PREFIXES = ['/console/', '/docs/'];

/** A path the bearer token never guards; the OpenAPI document marks its routes open (`security: []`). */
export function isOpenPath(path: string): boolean {
  return OPEN_ROUTES.has(path) || OPEN_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/**
 * The routes a gateway serving end users needs: run a turn, read the conversation it runs in. Every other route the
 * token guards is an operator's: the console, a conversation's audit rows, their trace and their stream, approval
 * decisions, admin, what-if and metrics. With OPERATOR_API_TOKEN set, only that token reaches them. The gateway's
 * routes are the ones listed, so a new route is an operator's until someone decides an end user's gateway needs it.
 */
const GATEWAY_ROUTES = new Set(['/api/v1/conversation/message', '/api/v1/conversation/:id']);

/** Who a route answers: anyone, either token (the gateway's routes), or the operator's token only. */
export type RouteAccess = 'open' | 'gateway' | 'operator';

/** A route's access by its router pattern (`/api/v1/conversation/:id`): the rule, in one place, for every route. */
export function routeAccess(url: string): RouteAccess {
  if (isOpenPath(url)) return 'open';
  return GATEWAY_ROUTES.has(url) ? 'gateway' : 'operator';
}

/** The API's tokens: API_TOKEN (the gateway's) and OPERATOR_API_TOKEN; without the latter, the former is both. */
export interface ApiTokens {
  apiToken?: string | undefined;
  operatorToken?: string | undefined;
}

/** A key of this process's own: the digests compared are of no use outside it. */
const DIGEST_KEY = randomBytes(32);
const digestOf = (text: string) => createHmac('sha256', DIGEST_KEY).update(text).digest();

type Holder = 'gateway' | 'operator';

/**
 * Which token a request sent, if either, in a time that depends on none of them: the token sent is compared, as a
 * 32-byte digest, with both tokens' digests every time (with a digest no token has when OPERATOR_API_TOKEN is unset),
 * so neither a length that differs nor which token it is, nor whether an operator token is set, shows in the time.
 */
function tokenHolder(gatewayToken: string, operatorToken: string | undefined): (given: string) => Holder | null {
  const gateway = digestOf(gatewayToken);
  const operator = operatorToken === undefined ? null : digestOf(operatorToken);
  const unmatched = randomBytes(gateway.length);
  return (given) => {
    const sent = digestOf(given);
    const isGateway = timingSafeEqual(sent, gateway);
    const isOperator = timingSafeEqual(sent, operator ?? unmatched);
    if (operator === null) return isGateway ? 'operator' : null;
    if (isOperator) return 'operator';
    return isGateway ? 'gateway' : null;
  };
}

/**
 * A 401's `WWW-Authenticate` (RFC 9110 §11.6.1, RFC 6750 §3): `Bearer` when no bearer token was sent, with
 * `error="invalid_token"` when the one sent is not the API's. The OpenAPI document lists both (api/error-responses.ts).
 */
export const BEARER_CHALLENGES = { noToken: 'Bearer', invalidToken: 'Bearer error="invalid_token"' } as const;

/** The 403's `WWW-Authenticate` (RFC 6750 §3.1): the gateway's token, valid, on an operator's route. */
export const OPERATOR_CHALLENGE = 'Bearer error="insufficient_scope"';
const OPERATOR_TOKEN_REQUIRED_MESSAGE =
  "This route is an operator's: it takes the operator token (OPERATOR_API_TOKEN), not the gateway token (API_TOKEN).";

/**
 * When a token is configured, every route but liveness, readiness and the static pages needs
 * `Authorization: Bearer <token>`: either token on the gateway's routes, and on the operator's the operator's token
 * (API_TOKEN when OPERATOR_API_TOKEN is unset). A 401 says how to authenticate, in BEARER_CHALLENGES, and is the
 * same whichever tokens are set; the gateway's token on an operator's route is a 403 OPERATOR_TOKEN_REQUIRED.
 */
export function installBearerAuth(app: FastifyInstance, { apiToken, operatorToken }: ApiTokens): void {
  // Env validation refuses OPERATOR_API_TOKEN without API_TOKEN; buildApi's caller is held to it here too.
  if (!apiToken) {
    if (operatorToken) throw new Error('OPERATOR_API_TOKEN needs API_TOKEN: without it every route would be open');
    return;
  }
  const holderOf = tokenHolder(apiToken, operatorToken);
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (isOpenPath(path)) return;
    const given = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();
    const holder = given === undefined ? null : holderOf(given);
    if (holder === null) {
      reply.header('www-authenticate', BEARER_CHALLENGES[given === undefined ? 'noToken' : 'invalidToken']);
      throw new ApiError(401, 'UNAUTHORIZED', 'A valid bearer token is required.');
    }
    // The route the router chose, not the path's text: no spelling of a path reaches an operator's route unchecked.
    // A path no route takes (404, 405) has nothing to keep from either token.
    const url = request.routeOptions.url;
    if (holder === 'gateway' && url !== undefined && routeAccess(url) === 'operator') {
      reply.header('www-authenticate', OPERATOR_CHALLENGE);
      throw new ApiError(403, 'OPERATOR_TOKEN_REQUIRED', OPERATOR_TOKEN_REQUIRED_MESSAGE);
    }
  });
}
