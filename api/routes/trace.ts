import type { FastifyInstance } from 'fastify';
import { buildTrace } from '../../core/audit/trace';
import { ApiError } from '../errors';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';
import { onConversationNamed } from '../sent-ids';
import { conversationIdParams } from '../schemas/common';
import { traceSchema } from '../schemas/conversation';
import { errorResponse } from '../error-responses';
import { auditPage, CONVERSATION_GONE, requireConversation, type AuditPage } from './conversation';

/**
 * One trace is built in memory and sent whole, so it covers a bounded trail (a few hundred turns of usual rows): in
 * rows and in payload bytes, both measured by the database before a row is loaded.
 */
const TRACE_MAX_ROWS = 20_000;
export const TRACE_MAX_BYTES = 32 * 1024 * 1024;

/** 422 TRACE_TOO_LARGE: which limit the trail passed, what was read before, and where to read the rows instead. */
function traceTooLarge(id: string, read: AuditPage): ApiError {
  const passed =
    read.rows.length === TRACE_MAX_ROWS
      ? `The conversation has more than ${TRACE_MAX_ROWS} audit rows`
      : `The conversation's audit rows hold more than ${TRACE_MAX_BYTES} bytes of payload as JSON (its first ` +
        `${read.rows.length} rows hold ${read.bytes} bytes and the next would pass that)`;
  return new ApiError(
    422,
    'TRACE_TOO_LARGE',
    `${passed}, more than one trace covers; read them in pages from GET /api/v1/conversation/audit/${id}.`,
    { maxRows: TRACE_MAX_ROWS, maxBytes: TRACE_MAX_BYTES, rowsRead: read.rows.length, bytesRead: read.bytes }
  );
}

export function traceRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/conversation/audit/:id/trace',
      summary:
        'The audit trail grouped into step frames with their stages (reference §9.3); a conversation of more than ' +
        `${TRACE_MAX_ROWS} audit rows, or whose rows hold more than ${TRACE_MAX_BYTES} bytes of payload as JSON, gets ` +
        '422 TRACE_TOO_LARGE, its details naming the limits and the rows and bytes read before one was passed ' +
        '(read its rows in pages instead).',
      schema: {
        params: conversationIdParams,
        response: {
          200: traceSchema,
          ...CONVERSATION_GONE,
          422: errorResponse(
            `TRACE_TOO_LARGE: the trail has more than ${TRACE_MAX_ROWS} audit rows, or more than ${TRACE_MAX_BYTES} ` +
              'bytes of payload as JSON (`details.maxRows`, `details.maxBytes`, `details.rowsRead`, ' +
              '`details.bytesRead`); read its rows in pages from GET /api/v1/conversation/audit/{id}'
          ),
        },
      },
    },
    async (request) =>
      onConversationNamed((request.params as { id: string }).id, async (id) => {
        await requireConversation(ports, id);
        const read = await auditPage(ports, id, {
          afterAuditId: 0,
          limit: TRACE_MAX_ROWS,
          maxBytes: TRACE_MAX_BYTES,
          takeFirst: false,
        });
        if (read.more) throw traceTooLarge(id, read);
        return buildTrace(id, read.rows);
      })
  );
}
