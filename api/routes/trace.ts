import type { FastifyInstance } from 'fastify';
import { buildTrace } from '../../core/audit/trace';
import { ApiError } from '../errors';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';
import { onConversationNamed } from '../sent-ids';
import { conversationIdParams } from '../schemas/common';
import { traceSchema } from '../schemas/conversation';
import { auditPage, requireConversation } from './conversation';

/** One trace is built in memory and sent whole, so it covers a bounded trail (a few hundred turns). */
const TRACE_MAX_ROWS = 20_000;

export function traceRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/conversation/audit/:id/trace',
      summary:
        'The audit trail grouped into step frames with their stages (reference §9.3); a conversation of more than ' +
        `${TRACE_MAX_ROWS} audit rows gets 422 TRACE_TOO_LARGE (read its rows in pages instead).`,
      schema: {
        params: conversationIdParams,
        response: { 200: traceSchema },
      },
    },
    async (request) =>
      onConversationNamed((request.params as { id: string }).id, async (id) => {
        await requireConversation(ports, id);
        const { rows, more } = await auditPage(ports, id, 0, TRACE_MAX_ROWS);
        if (more) {
          throw new ApiError(
            422,
            'TRACE_TOO_LARGE',
            `The conversation has more than ${TRACE_MAX_ROWS} audit rows, more than one trace covers; ` +
              `read them in pages from GET /api/v1/conversation/audit/${id}.`
          );
        }
        return buildTrace(id, rows);
      })
  );
}
