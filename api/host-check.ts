import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors';

/** Liveness and readiness answer whatever the Host: a probe may name the API by its pod's address, and they tell nothing secret. */
const ANY_HOST_PATHS = new Set(['/healthz', '/readyz']);

/** Whether a path's requests are refused under a Host that is not the API's (the OpenAPI document lists the 421). */
export const checksHost = (path: string) => !ANY_HOST_PATHS.has(path);

/** A Host header's name, without its port or an IPv6 address's brackets, in lower case: `[::1]:3000` is `::1`. */
export function hostName(header: string): string {
  const name = header.startsWith('[') ? header.slice(1, header.indexOf(']')) : header.replace(/:\d*$/, '');
  return name.toLowerCase().replace(/\.$/, '');
}

/** The name HOST gives, as hostName gives a Host header's: `[::1]` and `::1` are `::1`. */
const listenName = (host: string) =>
  host
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');

/** localhost, a name under .localhost (RFC 6761: never resolved elsewhere), 127.0.0.0/8 or ::1. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost') || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/**
 * Without API_TOKEN, the API answers only requests that name it by a loopback name or by the HOST it listens on
 * (docs/security.md). A web page on another site can make a browser send requests to 127.0.0.1 under that site's
 * own name (DNS rebinding): they carry that name in Host, and without a token nothing else would stop them reading
 * conversations or posting console actions. With a token they would need it, so the check is off.
 */
export function installHostCheck(app: FastifyInstance, options: { apiToken?: string; host?: string }): void {
  if (options.apiToken) return;
  const configured = options.host === undefined ? null : listenName(options.host);
  app.addHook('onRequest', async (request) => {
    if (!checksHost(request.url.split('?')[0] ?? '')) return;
    const name = hostName(request.headers.host ?? '');
    if (isLoopbackName(name) || name === configured) return;
    throw new ApiError(
      421,
      'HOST_NOT_ALLOWED',
      'Without API_TOKEN this API answers only requests addressed to localhost, 127.0.0.1, [::1] or its HOST; ' +
        'set API_TOKEN to serve it under another name.'
    );
  });
}

/** The warning of an API that listens beyond loopback with no token: anyone who reaches it may call every route. */
export function exposedWithoutTokenWarning(host: string, apiToken: string | undefined): string | null {
  if (apiToken || isLoopbackName(listenName(host))) return null;
  return (
    `HOST is ${host} and API_TOKEN is not set: every route, the console's actions included, answers whoever ` +
    'reaches this address without a token. Set API_TOKEN, or HOST=127.0.0.1.'
  );
}
