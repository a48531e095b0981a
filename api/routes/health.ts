import type { FastifyInstance } from 'fastify';
import { route, type OpenApiRegistry } from '../openapi';
import { readinessReply } from '../../observability/probe-server';
import type { ApiPorts } from '../ports';

export function healthRoutes(
  app: FastifyInstance,
  ports: ApiPorts,
  docs: OpenApiRegistry,
  metrics?: () => Promise<string>
): void {
  route(app, docs, { method: 'GET', url: '/healthz', summary: 'Liveness.' }, async () => ({ status: 'ok' }));

  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/readyz',
      summary: 'Readiness: the database and Temporal are reachable, and a worker polls the task queue.',
    },
    async (_request, reply) => {
      const { statusCode, body } = readinessReply(await ports.readiness.check());
      return reply.status(statusCode).send(body);
    }
  );

  if (!metrics) return;
  route(
    app,
    docs,
    { method: 'GET', url: '/metrics', summary: 'Prometheus metrics (text format).' },
    async (_r, reply) => reply.type('text/plain; version=0.0.4; charset=utf-8').send(await metrics())
  );
}
