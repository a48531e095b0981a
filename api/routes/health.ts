import type { FastifyInstance } from 'fastify';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';

export function healthRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  route(app, docs, { method: 'GET', url: '/healthz', summary: 'Liveness.' }, async () => ({ status: 'ok' }));

  route(
    app,
    docs,
    { method: 'GET', url: '/readyz', summary: 'Readiness: the database and Temporal are reachable.' },
    async (_request, reply) => {
      const checks = await ports.readiness.check();
      const ready = Object.values(checks).every((v) => v === 'ok');
      return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
    }
  );
}
