import type { FastifyInstance } from 'fastify';
import { badRequest, type ApiError } from './errors';

/** A parameter name quoted in an error: a plain identifier of bounded length, never arbitrary client text. */
const QUOTABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * A query component percent-decoded, or null when the bytes its escapes stand for are not UTF-8 (a stray byte, an
 * overlong or truncated sequence, an encoded surrogate). A `%` not followed by two hex digits is text, as WHATWG URLs
 * read it (`100%` is "100%", `caf%C3%A9%20100%` is "café 100%"), so it is escaped first and decodeURIComponent throws
 * only for such bytes.
 */
function decodedOrNull(component: string): string | null {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' ').replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  } catch {
    return null;
  }
}

/** A query string's `name=value` pairs as sent, still percent-encoded: `value` is null for a pair without `=`. */
function* rawPairs(query: string): Generator<{ name: string; value: string | null }> {
  for (const pair of query.split('&')) {
    const split = pair.indexOf('=');
    if (split >= 0) yield { name: pair.slice(0, split), value: pair.slice(split + 1) };
    else if (pair !== '') yield { name: pair, value: null };
  }
}

/**
 * The API's query string parser (api/app.ts gives it to the router): each name and value decoded by decodedOrNull, a
 * name given twice an array of its values, a name without `=` an empty value, as Fastify's own parser does. That one
 * left a whole value undecoded when one `%` in it escaped nothing (`q=caf%C3%A9%20100%` searched for
 * "caf%C3%A9 100%"). A component that is not UTF-8 is kept as sent: installQueryTextCheck refuses its request first.
 */
export function parseQuery(query: string): Record<string, string | string[]> {
  const parsed: Record<string, string | string[]> = Object.create(null);
  for (const { name, value } of rawPairs(query)) {
    const key = decodedOrNull(name) ?? name;
    const text = value === null ? '' : (decodedOrNull(value) ?? value);
    const seen = parsed[key];
    if (Array.isArray(seen)) seen.push(text);
    else parsed[key] = seen === undefined ? text : [seen, text];
  }
  return parsed;
}

/** The refusal for the first query parameter (name or value) that is not UTF-8 once percent-decoded, else null. */
export function queryTextRefusal(url: string): ApiError | null {
  const start = url.indexOf('?');
  if (start < 0) return null;
  for (const { name, value } of rawPairs(url.slice(start + 1))) {
    const decoded = decodedOrNull(name);
    if (decoded === null) return badRequest('INVALID_TEXT', "A query parameter's name is not valid UTF-8.");
    if (value !== null && decodedOrNull(value) === null) {
      return QUOTABLE_NAME.test(decoded)
        ? badRequest('INVALID_TEXT', `The query parameter ${decoded} is not valid UTF-8.`, { field: decoded })
        : badRequest('INVALID_TEXT', 'A query parameter is not valid UTF-8.');
    }
  }
  return null;
}

/**
 * Query strings are held to what bodies are (api/json-body.ts): parseQuery keeps a value whose escapes are not UTF-8
 * as its raw text (`q=%ff%fe` would search for "%ff%fe"), so a search or filter the client never meant would run;
 * such a request is refused with 400 INVALID_TEXT on every route, before its schema or handler sees it.
 */
export function installQueryTextCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const refusal = queryTextRefusal(request.url);
    if (refusal) throw refusal;
  });
}
