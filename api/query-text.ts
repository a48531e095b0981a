import type { FastifyInstance } from 'fastify';
import { badRequest, type ApiError } from './errors';

/** A parameter name quoted in an error: a plain identifier of bounded length, never arbitrary client text. */
const QUOTABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * A query component percent-decoded, or null when the bytes its escapes stand for are not UTF-8 (a stray byte, an
 * overlong or truncated sequence, an encoded surrogate). A `%` not followed by two hex digits is text, as the
 * router's parser and WHATWG URLs read it, so it is escaped first and decodeURIComponent throws only for such bytes.
 */
function decodedOrNull(component: string): string | null {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' ').replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  } catch {
    return null;
  }
}

/** The refusal for the first query parameter (name or value) that is not UTF-8 once percent-decoded, else null. */
export function queryTextRefusal(url: string): ApiError | null {
  const start = url.indexOf('?');
  if (start < 0) return null;
  for (const pair of url.slice(start + 1).split('&')) {
    const split = pair.indexOf('=');
    const name = split < 0 ? pair : pair.slice(0, split);
    const decoded = decodedOrNull(name);
    if (decoded === null) return badRequest('INVALID_TEXT', "A query parameter's name is not valid UTF-8.");
    if (split >= 0 && decodedOrNull(pair.slice(split + 1)) === null) {
      return QUOTABLE_NAME.test(decoded)
        ? badRequest('INVALID_TEXT', `The query parameter ${decoded} is not valid UTF-8.`, { field: decoded })
        : badRequest('INVALID_TEXT', 'A query parameter is not valid UTF-8.');
    }
  }
  return null;
}

/**
 * Query strings are held to what bodies are (api/json-body.ts): the router's parser keeps a value whose escapes are
 * not UTF-8 as its raw text (`q=%ff%fe` searched for "%ff%fe"), so a search or filter the client never meant would
 * run; such a request is refused with 400 INVALID_TEXT on every route, before its schema or handler sees it.
 */
export function installQueryTextCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const refusal = queryTextRefusal(request.url);
    if (refusal) throw refusal;
  });
}
