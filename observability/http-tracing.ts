import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { activeTracing, TRACER_NAME } from './tracing';

const spans = new WeakMap<FastifyRequest, { span: Span; ctx: Context }>();

/**
 * One server span per HTTP request (a W3C `traceparent` header continues the caller's trace), made
 * the active context while the route handler runs, so the Temporal client interceptor puts the
 * turn workflow under it. The handler is wrapped at route registration: Fastify parses the body
 * on socket events, outside any context a hook could enter. Call before the routes are added.
 */
export function installHttpTracing(app: FastifyInstance): void {
  if (!activeTracing()) return;
  const tracer = trace.getTracer(TRACER_NAME);
  app.addHook('onRequest', async (request, reply) => {
    const parent = propagation.extract(context.active(), request.headers);
    const route = request.routeOptions.url ?? 'unmatched';
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route } },
      parent
    );
    spans.set(request, { span, ctx: trace.setSpan(parent, span) });
    // Not onResponse: Fastify fires it neither for a hijacked reply (an SSE stream writes its own) nor when the
    // caller left before the answer. The raw response closes once in every case.
    reply.raw.once('close', () => endSpan(span, reply.raw));
  });
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function tracedHandler(this: FastifyInstance, request, reply) {
      const entry = spans.get(request);
      return entry
        ? context.with(entry.ctx, () => handler.call(this, request, reply))
        : handler.call(this, request, reply);
    };
  });
}

/** Ends a request's span with the status sent; a caller that left before any answer got none. */
function endSpan(span: Span, raw: ServerResponse): void {
  if (raw.headersSent) {
    span.setAttribute('http.response.status_code', raw.statusCode);
    if (raw.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  } else {
    span.setAttribute('error.type', 'client_disconnected');
  }
  span.end();
}
