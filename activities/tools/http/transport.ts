import http from 'node:http';
import https from 'node:https';
import type { HttpRequestSpec } from './request';

/**
 * One HTTP attempt with the two timeouts a tool row configures: connect (until the TCP/TLS
 * connection is up) and read (from then until the whole response has arrived). Node's fetch has
 * neither separately, so this uses node:http directly. Responses are capped in size.
 */
export interface HttpResponse {
  status: number;
  body: string;
  /** The Retry-After header as sent, if any (invoker.ts reads it). */
  retryAfter: string | null;
}

export type HttpIoKind = 'CONNECT_TIMEOUT' | 'READ_TIMEOUT' | 'IO' | 'RESPONSE_TOO_LARGE' | 'CONTENT_ENCODING';

/**
 * The answers that say nothing about the upstream's health and come back the same on another attempt: a body over
 * the size cap, a body in a content coding the engine did not ask for.
 */
export const ANSWER_IO_KINDS: ReadonlySet<HttpIoKind> = new Set(['RESPONSE_TOO_LARGE', 'CONTENT_ENCODING']);

export class HttpIoError extends Error {
  constructor(
    readonly kind: HttpIoKind,
    message: string
  ) {
    super(message);
    this.name = 'HttpIoError';
  }
}

export interface Timeouts {
  connectTimeoutMs: number;
  readTimeoutMs: number;
  /**
   * The activity's cancellation (a worker shutting down, an operator's cancel): the request ends at once and
   * the signal's reason is thrown. A tool row's read timeout may be long; a stopping worker must not wait it out.
   */
  signal?: AbortSignal;
}

export const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

export function sendOnce(spec: HttpRequestSpec, timeouts: Timeouts): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    const url = new URL(spec.url);
    const client = url.protocol === 'https:' ? https : http;
    let settled = false;
    let readTimer: NodeJS.Timeout | undefined;
    const finish = (err: Error | null, res?: HttpResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(readTimer);
      timeouts.signal?.removeEventListener('abort', onAbort);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(res as HttpResponse);
    };
    const startRead = (): void => {
      clearTimeout(connectTimer);
      readTimer ??= setTimeout(
        () => finish(new HttpIoError('READ_TIMEOUT', `no complete response within ${timeouts.readTimeoutMs} ms`)),
        timeouts.readTimeoutMs
      );
    };
    const req = client.request(url, { method: spec.method, headers: spec.headers, agent: false }, (res) => {
      const coding = contentCodingProblem(res.headers['content-encoding']);
      if (coding !== null) return finish(new HttpIoError('CONTENT_ENCODING', coding));
      collect(res, (err, body) =>
        err
          ? finish(err)
          : finish(null, {
              status: res.statusCode ?? 0,
              body: body ?? '',
              retryAfter: res.headers['retry-after'] ?? null,
            })
      );
    });
    const connectTimer = setTimeout(
      () => finish(new HttpIoError('CONNECT_TIMEOUT', `no connection within ${timeouts.connectTimeoutMs} ms`)),
      timeouts.connectTimeoutMs
    );
    req.on('socket', (socket) => {
      if (!socket.connecting) startRead();
      else socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', startRead);
    });
    req.on('error', (err) => finish(ioError(err)));
    const onAbort = (): void => {
      const reason: unknown = timeouts.signal?.reason;
      finish(reason instanceof Error ? reason : new Error('the HTTP call was cancelled'));
    };
    if (timeouts.signal?.aborted) return onAbort();
    timeouts.signal?.addEventListener('abort', onAbort, { once: true });
    if (spec.body !== null) req.write(spec.body);
    req.end();
  });
}

/**
 * Why a response's Content-Encoding cannot be read, or null for none or `identity`. The request asks for identity
 * (request.ts); a gzip or br body read as text would reach the planner and the audit as binary noise, and decoding
 * it would need a cap on what it inflates to (a 200 KB gzip holds 200 MB of spaces): it is refused instead. The
 * coding is named only when it reads as a coding token, never as the upstream's free text.
 */
function contentCodingProblem(header: string | undefined): string | null {
  const codings = (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return null;
  const named = codings.every((c) => /^[a-z0-9._+-]{1,32}$/.test(c)) ? codings.join(', ') : 'an unnamed coding';
  return `response has Content-Encoding ${named}; the engine asks for identity and reads no other coding`;
}

function collect(res: http.IncomingMessage, done: (err: Error | null, body?: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      res.destroy();
      done(new HttpIoError('RESPONSE_TOO_LARGE', `response larger than ${MAX_RESPONSE_BYTES} bytes`));
      return;
    }
    chunks.push(chunk);
  });
  res.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
  res.on('error', (err) => done(ioError(err)));
}

/**
 * A network failure by Node's code (ECONNREFUSED, ENOTFOUND, a TLS code such as ERR_TLS_CERT_ALTNAME_INVALID), not
 * Node's text: that names the host and port, which the environment filled into the URL (`{{env.…}}`), and the
 * failure's message reaches audit rows, history and logs.
 */
function ioError(err: Error): HttpIoError {
  const code = (err as NodeJS.ErrnoException).code;
  return new HttpIoError('IO', typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : err.name);
}
