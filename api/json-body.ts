import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors';

/** RFC 8259 §8.1: JSON on the wire is UTF-8. `fatal` makes a stray byte an error instead of U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON bodies are read as bytes and decoded strictly before Fastify's own parser (which keeps refusing
 * `__proto__` and `constructor`) sees them. Node's default decoding would turn an invalid byte into U+FFFD, so
 * a message the user never wrote would run a turn and be stored; it is refused as 400 INVALID_TEXT instead.
 */
export function installStrictJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(badRequest('INVALID_TEXT', 'The request body is not valid UTF-8.'), undefined);
      return;
    }
    // With a done callback the default parser answers through it and returns nothing to await.
    void parseJson(request, text, done);
  });
}
