import type { FastifyInstance } from 'fastify';
import { VERBOSE_PROGRESS } from '../../core/verbose';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts, AuditRowView } from '../ports';
import { uuidParam } from '../schemas';
import { requireConversation } from './conversation';

export interface StreamOptions {
  pollIntervalMs: number;
  /** Closes idle streams so abandoned clients do not hold a poller forever. */
  maxDurationMs: number;
}

function sseEvent(event: string, data: unknown, id?: number): string {
  const lines = [`event: ${event}`];
  if (id !== undefined) lines.push(`id: ${id}`);
  lines.push(`data: ${JSON.stringify(data)}`);
  return `${lines.join('\n')}\n\n`;
}

/**
 * One audit row as an event named by its stage. A progress message (VERBOSE_PROGRESS row) goes
 * out with that event type and also as `verbose` (the Java engine's VerboseStreamPayload), so a
 * client renders `verbose.text` without reading the audit payload.
 */
function auditEvent(row: AuditRowView): string {
  const verbose = row.stage === VERBOSE_PROGRESS;
  const { _meta: _written, ...message } = row.payload;
  return sseEvent(
    row.stage,
    {
      eventType: verbose ? VERBOSE_PROGRESS : 'AUDIT',
      auditId: row.auditId,
      stage: row.stage,
      createdAt: row.createdAt,
      payload: row.payload,
      verbose: verbose ? message : null,
    },
    row.auditId
  );
}

/**
 * SSE of audit rows as they are written (reference §9.4): `CONNECTED` first, then one event per
 * row named by its stage. Rows are polled by id, so a reconnecting client resumes with
 * Last-Event-ID and misses nothing.
 */
export function streamRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry, opts: StreamOptions): void {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/conversation/:id/stream',
      summary: 'Server-sent events: the conversation audit trail as it is written.',
      schema: { params: { type: 'object', required: ['id'], properties: { id: uuidParam } } },
    },
    async (request, reply) => {
      const id = (request.params as { id: string }).id.toLowerCase();
      await requireConversation(ports, id);
      const resumeFrom = Number(request.headers['last-event-id'] ?? 0);
      let lastId = Number.isFinite(resumeFrom) ? resumeFrom : 0;
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      raw.write(sseEvent('CONNECTED', { conversationId: id, transport: 'SSE' }));
      let closed = false;
      const started = Date.now();
      request.raw.on('close', () => {
        closed = true;
      });
      while (!closed && Date.now() - started < opts.maxDurationMs) {
        const rows = await ports.conversations.audits(id, lastId).catch(() => []);
        for (const row of rows) {
          raw.write(auditEvent(row));
          lastId = row.auditId;
        }
        await new Promise((resolve) => setTimeout(resolve, opts.pollIntervalMs));
      }
      raw.end();
    }
  );
}
