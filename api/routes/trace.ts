import type { FastifyInstance } from 'fastify';
import { buildTrace } from '../../core/audit/trace';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';
import { errorSchema, uuidParam } from '../schemas';
import { allAudits, requireConversation } from './conversation';

export function traceRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/conversation/audit/:id/trace',
      summary: 'The audit trail grouped into step frames with their stages (reference §9.3).',
      schema: {
        params: { type: 'object', required: ['id'], properties: { id: uuidParam } },
        response: { '4xx': errorSchema },
      },
    },
    async (request) => {
      const id = (request.params as { id: string }).id.toLowerCase();
      await requireConversation(ports, id);
      return buildTrace(id, await allAudits(ports, id));
    }
  );
}
