import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isNamespaceNotFound, isTemporalUnreachable } from '../config/temporal-client';
import { busyPoolOf, isDatabaseBusy, isDatabaseUnreachable } from '../db/connection-loss';
import { databaseErrorText } from '../db/error-text';
import { failureOutline } from '../observability/failure-outline';
import { busyLog } from '../observability/prerequisite-checks';
import { PREREQUISITE_MESSAGES, type PrerequisiteProblem } from '../observability/prerequisite-problems';
import { methodsThatWork } from './allowed-methods';
import { ApiError, envelope } from './errors';
import type { ReadinessProbe } from './ports';
import { validationRefusal, type ValidationIssue } from './validation-refusal';

/** Fastify's router refuses a longer path parameter (its maxParamLength default, which api/app.ts keeps). */
export const MAX_PARAM_LENGTH = 100;

/**
 * A dependency down, cut off mid-request or without its namespace: 503 with its code on every route, as the
 * prerequisite check answers.
 */
const UNREACHABLE_DEPENDENCIES: readonly { failed(err: unknown): boolean; code: PrerequisiteProblem; log: string }[] = [
  { failed: isTemporalUnreachable, code: 'TEMPORAL_UNREACHABLE', log: 'Temporal unreachable' },
  { failed: isNamespaceNotFound, code: 'TEMPORAL_NAMESPACE_MISSING', log: 'Temporal namespace missing' },
  // Before the unreachable database: every busy one is one of those too.
  { failed: isDatabaseBusy, code: 'DATABASE_BUSY', log: 'database busy' },
  { failed: isDatabaseUnreachable, code: 'DATABASE_UNREACHABLE', log: 'database unreachable' },
];

/**
 * Their 503, whichever way it came (a failure here, or a route's prerequisite check refusing the turn): the
 * dependency may be back, or an operator's `migrate`, `setup-temporal`, `seed` or `config apply` have mended the
 * prerequisite, by the next try; the turn may not have started, and a retry with its Idempotency-Key is safe.
 */
function retryLaterOn(code: string, reply: FastifyReply): FastifyReply {
  if (Object.hasOwn(PREREQUISITE_MESSAGES, code)) reply.header('retry-after', '5');
  return reply;
}

/** Fastify's body parser refusing what was sent: each its own 4xx and code. */
const BODY_REFUSALS = new Map<string | undefined, { status: number; code: string; message: string }>([
  [
    'FST_ERR_CTP_EMPTY_JSON_BODY',
    { status: 400, code: 'MALFORMED_BODY', message: 'The request body is empty; send a JSON object.' },
  ],
  [
    // Fastify's parser refuses prototype-poisoning keys with the same error as a syntax error, and keeps no cause.
    'FST_ERR_CTP_INVALID_JSON_BODY',
    {
      status: 400,
      code: 'MALFORMED_BODY',
      message: 'The request body is not valid JSON, or names a property the API refuses (__proto__, constructor).',
    },
  ],
  ['FST_ERR_CTP_BODY_TOO_LARGE', { status: 413, code: 'BODY_TOO_LARGE', message: 'The request body is too large.' }],
  [
    'FST_ERR_CTP_INVALID_MEDIA_TYPE',
    { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as application/json.' },
  ],
]);

/** The path of a request, without its query. */
function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '';
}

/**
 * RFC 9110 §15.5.6: the path exists under other methods, so say which ones instead of "not found". A route that
 * serves this very method and found nothing there (a wildcard's file that does not exist: /docs/static/x.js) is a
 * path that does not exist: 404, not a 405 whose Allow names the method just refused.
 */
function methodNotAllowed(methodsServing: (path: string) => string[]) {
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply | null => {
    const path = pathOf(request);
    const allowed = methodsServing(path);
    if (allowed.length === 0 || allowed.includes(request.method)) return null;
    reply.header('allow', allowed.join(', '));
    return reply.status(405).send(envelope('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}.`));
  };
}

export interface ErrorHandlerOptions {
  readiness?: Pick<ReadinessProbe, 'turnBlocker'>;
  /**
   * The error lines keep an error's outline only, never its message or stack (failure-outline.ts
   * withoutFailureText): with PAYLOAD_ENCRYPTION_KEYS set, what a route failed on may quote what a user sent.
   */
  withoutFailureText?: boolean;
}

/** The `err` of an error line: the error, or its outline only (ErrorHandlerOptions.withoutFailureText). */
function loggedError(err: Error, options: ErrorHandlerOptions): unknown {
  return options.withoutFailureText === true ? failureOutline(err) : err;
}

/**
 * The one error handler: every failure becomes the envelope, client mistakes are 4xx with a
 * specific code, and nothing internal (stack, SQL, driver message) ever reaches the client.
 */
export function installErrorHandler(app: FastifyInstance, options: ErrorHandlerOptions = {}): void {
  const notAllowed = methodNotAllowed(methodsThatWork(app));
  app.setErrorHandler(async (err: FastifyError | ApiError | Error, request, reply) => {
    if (err instanceof ApiError) {
      if (err.statusCode === 503) retryLaterOn(err.code, reply);
      return reply.status(err.statusCode).send(envelope(err.code, err.message, err.details));
    }
    const fe = err as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
    if (fe.validation) {
      // A path another route serves, which this one's router pattern also matched (GET on the POST-only
      // /conversation/message, read as GET /conversation/{id}), is that route's, under another method.
      const elsewhere = fe.validationContext === 'params' ? notAllowed(request, reply) : null;
      return elsewhere ?? reply.status(400).send(validationRefusal(fe.validation, fe.validationContext));
    }
    const refused = BODY_REFUSALS.get(fe.code);
    if (refused) return reply.status(refused.status).send(envelope(refused.code, refused.message));
    return sendClientStatus(fe, reply) ?? (await sendServerError(err, request, reply, options));
  });
  app.setNotFoundHandler((request, reply) => {
    if (notAllowed(request, reply)) return;
    reply.status(404).send(envelope('ROUTE_NOT_FOUND', `No route ${request.method} ${pathOf(request)}.`));
  });
}

/**
 * The code of another 4xx Fastify raised: the status's own name (403 FORBIDDEN, 416 RANGE_NOT_SATISFIABLE), so that
 * the code says what the status says, as every other code does.
 */
function clientStatusCode(status: number): string {
  return (STATUS_CODES[status] ?? 'Bad Request').toUpperCase().replace(/[^A-Z]+/g, '_');
}

/**
 * Another 4xx Fastify raised (@fastify/static refusing a dot-segment under /docs/static with 403): its status stands,
 * its code is the status's name, and the answer names nothing of Fastify's.
 */
function sendClientStatus(err: FastifyError, reply: FastifyReply): FastifyReply | null {
  if (typeof err.statusCode !== 'number' || err.statusCode < 400 || err.statusCode >= 500) return null;
  const code = clientStatusCode(err.statusCode);
  return reply.status(err.statusCode).send(envelope(code, 'The request could not be processed.'));
}

/**
 * A dependency down is its 503, and so is a statement that failed on a database lacking migrations (a read's
 * `relation … does not exist`): the 503 DATABASE_NOT_MIGRATED a message gets, by the prerequisite check's one rule
 * (db/migrate.ts notMigratedMessage), asked only after a statement failed. Anything else is a 500 that says only
 * that, while the log has the error.
 */
async function sendServerError(
  err: Error,
  request: FastifyRequest,
  reply: FastifyReply,
  options: ErrorHandlerOptions
): Promise<FastifyReply> {
  const unreachable = UNREACHABLE_DEPENDENCIES.find(({ failed }) => failed(err));
  const code = unreachable?.code ?? (await notMigratedCause(err, options.readiness));
  if (code === null) return sendInternal(err, request, reply, 'unhandled error', options);
  const busy = busyPoolOf(err);
  const logged = loggedError(err, options);
  // A busy database is load, not a fault: the pool's state says how much.
  const said = busy === null ? null : busyLog(busy);
  if (said !== null) request.log.warn({ err: logged, ...said.fields }, said.message);
  else request.log.error({ err: logged }, unreachable?.log ?? 'database not migrated');
  return retryLaterOn(code, reply).status(503).send(envelope(code, PREREQUISITE_MESSAGES[code]));
}

/** DATABASE_NOT_MIGRATED when `err` is a failed statement and the prerequisite check finds migrations missing. */
async function notMigratedCause(
  err: Error,
  readiness: Pick<ReadinessProbe, 'turnBlocker'> | undefined
): Promise<'DATABASE_NOT_MIGRATED' | null> {
  if (databaseErrorText(err) === null || !readiness?.turnBlocker) return null;
  const blocked = await readiness.turnBlocker().catch(() => null);
  return blocked?.code === 'DATABASE_NOT_MIGRATED' ? 'DATABASE_NOT_MIGRATED' : null;
}

/** The 500 for what was never expected: logged with its error, answered with nothing of it. */
function sendInternal(
  err: Error,
  request: FastifyRequest,
  reply: FastifyReply,
  log: string,
  options: ErrorHandlerOptions
): FastifyReply {
  request.log.error({ err: loggedError(err, options) }, log);
  return reply.status(500).send(envelope('INTERNAL', 'Something went wrong on our side.'));
}

/**
 * Errors Fastify raises before routing (a URL whose percent-encoding does not decode, a path parameter over the
 * router's length limit), which the error handler never sees: the same envelope, instead of Fastify's own body with
 * its error code, and never a 500 for what the client sent.
 */
export function frameworkError(
  options: ErrorHandlerOptions
): (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (err, request, reply) => {
    if (err.code === 'FST_ERR_BAD_URL') {
      void reply.status(400).send(envelope('MALFORMED_URL', 'The request URL is not valid (bad percent-encoding).'));
      return;
    }
    if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      void reply
        .status(414)
        .send(envelope('URL_TOO_LONG', `A path parameter is longer than ${MAX_PARAM_LENGTH} characters.`));
      return;
    }
    void (sendClientStatus(err, reply) ?? sendInternal(err, request, reply, 'unhandled framework error', options));
  };
}

/** Answers a request Node could not even parse, in the one envelope, and closes the connection. */
export function writeClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify(
    tooLarge
      ? envelope('HEADERS_TOO_LARGE', 'The request headers are too large.')
      : envelope('MALFORMED_REQUEST', 'The request could not be parsed as HTTP.')
  );
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
