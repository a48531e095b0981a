import Fastify, { type FastifyInstance } from 'fastify';
import { installBearerAuth } from './auth';
import { installErrorHandler, writeClientError } from './error-handler';
import { OpenApiRegistry } from './openapi';
import type { ApiPorts } from './ports';
import { adminRoutes } from './routes/admin';
import { conversationRoutes } from './routes/conversation';
import { healthRoutes } from './routes/health';
import { streamRoutes } from './routes/stream';
import { traceRoutes } from './routes/trace';

export interface ApiOptions {
  ports: ApiPorts;
  apiToken?: string;
  messageMaxBytes: number;
  logLevel?: string;
  streamPollIntervalMs?: number;
  streamMaxDurationMs?: number;
  version?: string;
}

export function buildApi(options: ApiOptions): FastifyInstance {
  const app = Fastify({
    logger: { level: options.logLevel ?? 'warn' },
    bodyLimit: Math.max(1024 * 1024, options.messageMaxBytes * 8),
    // Errors Node's HTTP parser raises before Fastify sees a request (header too large, bad
    // request line) still get the envelope.
    clientErrorHandler: writeClientError,
    // No coercion: a number where text is expected is a client mistake, not something to guess at.
    ajv: { customOptions: { allErrors: false, coerceTypes: false, removeAdditional: false } },
  });
  const docs = new OpenApiRegistry();
  installErrorHandler(app);
  installBearerAuth(app, options.apiToken);
  healthRoutes(app, options.ports, docs);
  conversationRoutes(app, options.ports, docs, { messageMaxBytes: options.messageMaxBytes });
  traceRoutes(app, options.ports, docs);
  streamRoutes(app, options.ports, docs, {
    pollIntervalMs: options.streamPollIntervalMs ?? 250,
    maxDurationMs: options.streamMaxDurationMs ?? 30 * 60 * 1000,
  });
  adminRoutes(app, options.ports, docs);
  app.get('/docs/openapi.json', async () => docs.document(options.version ?? '0.1.0'));
  return app;
}
