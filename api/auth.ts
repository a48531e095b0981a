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

/** A key of this process's own: the digests compared are of no use outside it. */
const DIGEST_KEY = randomBytes(32);
const digestOf = (text: string) => createHmac('sha256', DIGEST_KEY).update(text).digest();

/**
 * Whether the token sent is the API's, in a time that depends on neither: both are compared as 32-byte digests, so
 * no early return on a length that differs tells a caller how long the token is.
 */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digestOf(given), digestOf(expected));
}

/**
 * A 401's `WWW-Authenticate` (RFC 9110 §11.6.1, RFC 6750 §3): `Bearer` when no bearer token was sent, with
 * `error="invalid_token"` when the one sent is not the API's. The OpenAPI document lists both (api/error-responses.ts).
 */
export const BEARER_CHALLENGES = { noToken: 'Bearer', invalidToken: 'Bearer error="invalid_token"' } as const;

/**
 * When a token is configured, every route but liveness, readiness and the static pages needs
 * `Authorization: Bearer <token>`.
 * A 401 says how to authenticate, in BEARER_CHALLENGES.
 */
export function installBearerAuth(app: FastifyInstance, token: string | undefined): void {
  if (!token) return;
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (isOpenPath(path)) return;
    const header = request.headers.authorization ?? '';
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    if (given !== undefined && sameSecret(given, token)) return;
    reply.header('www-authenticate', BEARER_CHALLENGES[given === undefined ? 'noToken' : 'invalidToken']);
    throw new ApiError(401, 'UNAUTHORIZED', 'A valid bearer token is required.');
  });
}
