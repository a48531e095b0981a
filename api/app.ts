import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify';
import type { Histogram } from 'prom-client';
import { INPUT_PARAMS_DEFAULT_MAX_BYTES, STREAM_MAX_CONNECTIONS_DEFAULT, WHATIF_DEFAULT_LIMITS } from '../config/env';
import { MESSAGE_MAX_CONCURRENT_FALLBACK } from '../config/open-files';
import { installClosedRequestLog } from '../observability/closed-request-log';
import { installHttpTracing } from '../observability/http-tracing';
import type { Logger } from '../observability/logger';
import { installTurnMetrics } from '../observability/turn-metrics';
import { installBearerAuth } from './auth';
import { capConnections } from './connection-cap';
import { installHostCheck } from './host-check';
import type { LimitMetrics } from './concurrency-limit';
import { consoleAssetRoutes } from './console/assets';
import type { ConsolePorts } from './console/ports';
import { installSwaggerUi } from './docs-ui';
import { frameworkError, installErrorHandler, MAX_PARAM_LENGTH, writeClientError } from './error-handler';
import { ApiError, apiStopping } from './errors';
import { OpenApiRegistry } from './openapi';
import type { ApiPorts } from './ports';
import { adminRoutes } from './routes/admin';
import { consoleRoutes } from './routes/console';
import { heldToolRoutes } from './routes/held-tools';
import { approvalQueueRoutes } from './routes/approval-queue';
import { conversationRoutes } from './routes/conversation';
import { healthRoutes } from './routes/health';
import { streamRoutes, type StreamOptions } from './routes/stream';
import { traceRoutes } from './routes/trace';
import { whatifRoutes, type WhatifLimits } from './routes/whatif';
import { installStrictJsonParser } from './json-body';
import { installQueryTextCheck, parseQuery } from './query-text';
import { installTurnIdCheck } from './turns/turn-id';

export interface ApiOptions {
  ports: ApiPorts;
  apiToken?: string;
  /** OPERATOR_API_TOKEN: the only token the operator's routes take when given (api/auth.ts); needs apiToken. */
  operatorToken?: string;
  /** The HOST the API listens on: without apiToken, requests naming it are answered besides loopback names. */
  host?: string;
  messageMaxBytes: number;
  /** Default INPUT_PARAMS_DEFAULT_MAX_BYTES (config/env.ts). */
  inputParamsMaxBytes?: number;
  logLevel?: string;
  /** The process logger (JSON lines, request ids); without one, Fastify's own at `logLevel`. */
  logger?: Logger;
  /** Prometheus text for GET /metrics; the route exists only when given. */
  metrics?: () => Promise<string>;
  /** convengine_turn_duration_seconds: turn requests are timed in it when given (observability/turn-metrics.ts). */
  turnDuration?: Histogram<'outcome'>;
  /** Where the per-process limits (audit streams, what-if replays) report their use. */
  limitMetrics?: LimitMetrics;
  streamPollIntervalMs?: number;
  streamMaxDurationMs?: number;
  /** POST /conversation/message requests answered at once; default MESSAGE_MAX_CONCURRENT_FALLBACK (config/open-files.ts). */
  messageMaxConcurrent?: number;
  /** HTTP connections held at once (api/connection-cap.ts); absent: no bound but Node's. */
  maxConnections?: number;
  /** Audit streams open at once (default 100); see StreamOptions. */
  streamMaxConnections?: number;
  streamHeartbeatMs?: number;
  version?: string;
  /** Bounds on GET /api/v1/whatif, which replays in this process. Default WHATIF_DEFAULT_LIMITS (config/env.ts). */
  whatifLimits?: WhatifLimits;
  /** The turn console (/console and its API); absent: no console. */
  console?: ConsolePorts;
  /**
   * Whether the API is about to close (ApiServer.close's delay): /readyz then answers 503 while every other request is
   * still served. Closing itself answers so too.
   */
  leaving?: () => boolean;
  /**
   * The error lines (`unhandled error`, the 503 database lines) keep an error's outline only, never its message or
   * stack: withoutFailureText(env) (observability/failure-outline.ts), with PAYLOAD_ENCRYPTION_KEYS set.
   */
  withoutFailureText?: boolean;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function callerRequestId(header: string | string[] | undefined): string | null {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : null;
}

export function buildApi(options: ApiOptions): FastifyInstance {
  const app = Fastify(fastifyOptions(options));
  if (options.maxConnections !== undefined) {
    const warn = options.logger ? options.logger.warn.bind(options.logger) : undefined;
    capConnections(app.server, { max: options.maxConnections, metrics: options.limitMetrics, warn });
  }
  const docs = new OpenApiRegistry();
  installClosedRequestLog(app);
  installHttpTracing(app);
  if (options.turnDuration) installTurnMetrics(app, options.turnDuration);
  const closing = installClosingHooks(app);
  const stopping = () => closing() || (options.leaving?.() ?? false);
  installRequestChecks(app, options);
  registerRoutes(app, docs, options, stopping);
  const document = docs.document(options.version ?? '0.1.0');
  app.get('/docs/openapi.json', async () => document);
  installSwaggerUi(app, document);
  return app;
}

/** The server's logger, request ids, limits and parsers: every answer in the one envelope, nothing coerced. */
function fastifyOptions(options: ApiOptions): FastifyServerOptions {
  return {
    ...(options.logger
      ? { loggerInstance: options.logger as FastifyBaseLogger }
      : { logger: { level: options.logLevel ?? 'warn' } }),
    // A caller's X-Request-Id (a proxy's, a client's) names the request in every log line and audit row when it is
    // a plain token of at most 128 characters; anything else (3,000 characters, raw bytes) gets a UUID instead.
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    genReqId: (req) => callerRequestId(req.headers['x-request-id']) ?? randomUUID(),
    bodyLimit: Math.max(1024 * 1024, options.messageMaxBytes * 8),
    // Errors Node's HTTP parser raises before Fastify sees a request (header too large, bad
    // request line) still get the envelope.
    clientErrorHandler: writeClientError,
    frameworkErrors: frameworkError({ withoutFailureText: options.withoutFailureText }),
    // Query values decoded as a user reads them: `q=caf%C3%A9%20100%` is "café 100%" (api/query-text.ts).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, querystringParser: parseQuery },
    // No coercion: a number where text is expected is a client mistake, not something to guess at.
    ajv: { customOptions: { allErrors: false, coerceTypes: false, removeAdditional: false } },
    return503OnClosing: false,
  };
}

/** Every answer names its request; once the API is closing, each ends its connection. Returns whether it is closing. */
function installClosingHooks(app: FastifyInstance): () => boolean {
  // A keep-alive socket whose request was answered during the drain would otherwise stay open, holding the close,
  // until its idle timeout (72 s).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
  });
  // A request that reaches a closing API on a connection still open is refused in the error envelope the OpenAPI
  // document promises (Fastify's own 503, return503OnClosing, has a body of its own); /readyz says not ready.
  app.addHook('onRequest', async (request) => {
    if (closing && request.routeOptions.url !== '/readyz') throw apiStopping();
  });
  return () => closing;
}

/**
 * What every request passes before its route: a JSON body, the one error handler, the token (or without one, a Host
 * that names this API), sound text and ids.
 */
function installRequestChecks(app: FastifyInstance, options: ApiOptions): void {
  const { apiToken, operatorToken, host, ports } = options;
  // JSON only (docs/security.md): without this, Fastify's own text/plain parser hands a string to routes
  // that expect an object, and the caller gets a 400 about the body's type instead of 415.
  app.removeContentTypeParser('text/plain');
  installStrictJsonParser(app);
  installErrorHandler(app, { readiness: ports.readiness, withoutFailureText: options.withoutFailureText });
  installBearerAuth(app, { apiToken, operatorToken });
  installHostCheck(app, { apiToken, host });
  installQueryTextCheck(app);
  installTurnIdCheck(app);
  installDeploymentCheck(app, ports.readiness);
}

/**
 * On a database bound to another deployment every /api/ route answers 503 DEPLOYMENT_MISMATCH, reads as much as
 * turns: the conversations, audit trails and turn records there are the other deployment's, and an operator must not
 * read them as this one's. Liveness, readiness (its `deployment` check) and metrics still answer.
 */
function installDeploymentCheck(app: FastifyInstance, readiness: ApiPorts['readiness']): void {
  const blocker = readiness.deploymentBlocker?.bind(readiness);
  if (!blocker) return;
  app.addHook('onRequest', async (request) => {
    if (!request.routeOptions.url?.startsWith('/api/')) return;
    const blocked = await blocker();
    if (blocked) throw new ApiError(503, blocked.code, blocked.message);
  });
}

/** Every route group, in the order the OpenAPI document lists them; the optional ones only with their ports. */
function registerRoutes(
  app: FastifyInstance,
  docs: OpenApiRegistry,
  options: ApiOptions,
  stopping: () => boolean
): void {
  healthRoutes(app, options.ports, docs, { metrics: options.metrics, stopping });
  conversationRoutes(app, options.ports, docs, {
    messageMaxBytes: options.messageMaxBytes,
    inputParamsMaxBytes: options.inputParamsMaxBytes ?? INPUT_PARAMS_DEFAULT_MAX_BYTES,
    messageMaxConcurrent: options.messageMaxConcurrent ?? MESSAGE_MAX_CONCURRENT_FALLBACK,
    limitMetrics: options.limitMetrics,
  });
  traceRoutes(app, options.ports, docs);
  streamRoutes(app, options.ports, docs, streamOptions(options), options.limitMetrics);
  adminRoutes(app, options.ports, docs);
  if (options.ports.whatif) {
    whatifRoutes(app, options.ports.whatif, docs, options.whatifLimits ?? WHATIF_DEFAULT_LIMITS, options.limitMetrics);
  }
  heldToolRoutes(app, options.ports, docs);
  approvalQueueRoutes(app, options.ports, docs);
  if (options.console) {
    consoleRoutes(app, options.ports, options.console, docs);
    consoleAssetRoutes(app);
  }
}

/** The audit streams' bounds, each at its default where the caller left it unset. */
function streamOptions(options: ApiOptions): StreamOptions {
  return {
    pollIntervalMs: options.streamPollIntervalMs ?? 250,
    maxDurationMs: options.streamMaxDurationMs ?? 30 * 60 * 1000,
    maxStreams: options.streamMaxConnections ?? STREAM_MAX_CONNECTIONS_DEFAULT,
    heartbeatMs: options.streamHeartbeatMs ?? 15_000,
  };
}
