import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * Swagger UI at /docs over the OpenAPI document the routes build (api/openapi.ts). @fastify/swagger
 * runs in static mode: it only hands that document to the UI, it does not collect routes itself.
 */
export function installSwaggerUi(app: FastifyInstance, document: Record<string, unknown>): void {
  void app.register(fastifySwagger, { mode: 'static', specification: { document: document as never } });
  void app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { persistAuthorization: false } });
}
