import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { SWAGGER_UI_HEADERS } from './page-headers';

/**
 * Swagger UI at /docs over the OpenAPI document the routes build (api/openapi.ts). @fastify/swagger
 * runs in static mode: it only hands that document to the UI, it does not collect routes itself.
 */
export function installSwaggerUi(app: FastifyInstance, document: Record<string, unknown>): void {
  void app.register(fastifySwagger, { mode: 'static', specification: { document: document as never } });
  // A scope of its own, whose hook gives every answer under /docs (the page, its static files, their refusals) the
  // pages' security headers, and no other route.
  void app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply) => {
      reply.headers(SWAGGER_UI_HEADERS);
    });
    await scope.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { persistAuthorization: false } });
  });
}
