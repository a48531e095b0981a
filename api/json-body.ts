import type { FastifyInstance } from 'fastify';
import { ApiError, badRequest } from './errors';
import { firstJsonLoss, type JsonLoss } from '../core/json-loss';
import { jsonLossRefusal } from './json-loss';

/** RFC 8259 §8.1: JSON on the wire is UTF-8. `fatal` makes a stray byte an error instead of U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The charset names that mean UTF-8 (compared lowercased): the IANA name and the common alias. */
const UTF8_NAMES: ReadonlySet<string> = new Set(['utf-8', 'utf8']);

/**
 * Each `charset` parameter of a Content-Type value (RFC 9110 §8.3.1: a token or a quoted string, the name
 * case-insensitive), lowercased and unquoted; a parameter without a value counts as the empty name.
 */
export function declaredCharsets(contentType: string): string[] {
  const params = contentType.slice(contentType.indexOf(';') + 1 || contentType.length);
  const found: string[] = [];
  for (const match of params.matchAll(/(?:^|;)\s*charset\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)/gi)) {
    const value = match[1] ?? '';
    const unquoted = value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
    found.push(unquoted.trim().toLowerCase());
  }
  return found;
}

/**
 * Null when a JSON body sent with this Content-Type is read as UTF-8, as declared: no charset, or utf-8 (utf8).
 * A body declared in another charset (latin1, utf-16) would otherwise be decoded as UTF-8 all the same, and a
 * message the user never wrote would run a turn; it is refused with 415 UNSUPPORTED_CHARSET before it is decoded.
 */
export function charsetRefusal(contentType: string | undefined): ApiError | null {
  const refused = declaredCharsets(contentType ?? '').some((name) => !UTF8_NAMES.has(name));
  return refused
    ? new ApiError(
        415,
        'UNSUPPORTED_CHARSET',
        'Send the JSON body as UTF-8: Content-Type application/json, with no charset or charset=utf-8.'
      )
    : null;
}

/**
 * Null when the body is sent as it is: no Content-Encoding, or only `identity`. Any other coding (gzip, br,
 * deflate) is refused with 415 UNSUPPORTED_CONTENT_ENCODING (RFC 9110 §15.5.16) rather than read as if it were not
 * encoded: the API decodes none, and compressed bytes read as JSON are either refused as malformed or, worse, read.
 */
export function contentEncodingRefusal(contentEncoding: string | undefined): ApiError | null {
  const codings = (contentEncoding ?? '').split(',').map((coding) => coding.trim().toLowerCase());
  return codings.every((coding) => coding === '' || coding === 'identity')
    ? null
    : new ApiError(
        415,
        'UNSUPPORTED_CONTENT_ENCODING',
        'Send the request body without a Content-Encoding (identity): the API does not decompress request bodies.'
      );
}

/**
 * JSON bodies are read as bytes and decoded strictly before Fastify's own parser (which keeps refusing
 * `__proto__` and `constructor`) sees them. Node's default decoding would turn an invalid byte into U+FFFD, so
 * a message the user never wrote would run a turn and be stored; it is refused as 400 INVALID_TEXT instead.
 * A body the parser reads is then refused when reading it lost something: a key given twice, a number a double
 * does not hold (core/json-loss.ts). Such numbers are not kept exactly instead, as config export keeps them
 * (db/config/exact-json.ts): a turn's input goes through Temporal's JSON payloads and the engine as doubles.
 */
export function installStrictJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const unread =
      contentEncodingRefusal(request.headers['content-encoding']) ?? charsetRefusal(request.headers['content-type']);
    if (unread) {
      done(unread, undefined);
      return;
    }
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(badRequest('INVALID_TEXT', 'The request body is not valid UTF-8.'), undefined);
      return;
    }
    // With a done callback the default parser answers through it and returns nothing to await.
    void parseJson(request, text, (err, value: unknown) => {
      const loss = err ? null : firstJsonLoss(text);
      if (err || loss) done(err ?? jsonLossRefusal(loss as JsonLoss), undefined);
      else done(null, value);
    });
  });
}
