import type { FastifyInstance } from 'fastify';
import { route, type OpenApiRegistry } from '../openapi';
import { readinessReply } from '../../observability/probe-server';
import type { ApiPorts } from '../ports';
import { textResponse } from '../schemas/common';
import { livenessSchema, readinessSchema } from '../schemas/health';

export interface HealthRouteOptions {
  /** Prometheus text for GET /metrics; the route exists only when given. */
  metrics?: (() => Promise<string>) | undefined;
  /** Whether the API is closing, or about to: /readyz then says not ready without asking the dependencies. */
  stopping(): boolean;
}

/** While the API closes, readiness has one check, and it fails: a load balancer sends requests elsewhere. */
const STOPPING = { checks: { api: 'stopping' } };

export function healthRoutes(
  app: FastifyInstance,
  ports: ApiPorts,
  docs: OpenApiRegistry,
  { metrics, stopping }: HealthRouteOptions
): void {
  route(
    app,
    docs,
    { method: 'GET', url: '/healthz', summary: 'Liveness.', schema: { response: { 200: livenessSchema } } },
    async () => ({ status: 'ok' })
  );

  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/readyz',
      summary: 'Readiness: the database and Temporal are reachable, and a worker polls the task queue.',
      schema: {
        response: {
          200: readinessSchema,
          503: { ...readinessSchema, description: 'A check is not ok (a busy database counts as ok).' },
        },
      },
    },
    async (_request, reply) => {
      const { statusCode, body } = readinessReply(stopping() ? STOPPING : await ports.readiness.check());
      return reply.status(statusCode).send(body);
    }
  );

  if (!metrics) return;
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/metrics',
      summary: 'Prometheus metrics (text format).',
      schema: { response: { 200: textResponse('text/plain', 'Prometheus text exposition format 0.0.4.') } },
    },
    async (_r, reply) => reply.type('text/plain; version=0.0.4; charset=utf-8').send(await metrics())
  );
}
