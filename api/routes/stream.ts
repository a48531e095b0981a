import { setMaxListeners } from 'node:events';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { VERBOSE_PROGRESS } from '../../core/verbose';
import { AuditFeed } from '../audit-feed';
import { busyResponse, ConcurrencyLimit, type LimitMetrics, type LimitRefusal } from '../concurrency-limit';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts, AuditRowView } from '../ports';
import { conversationIdParams, textResponse } from '../schemas/common';
import { onConversationNamed } from '../sent-ids';
import { CONVERSATION_GONE, requireConversation } from './conversation';

export interface StreamOptions {
  /** How often the process's one audit reader (api/audit-feed.ts) looks for new rows for every open stream. */
  pollIntervalMs: number;
  /** Closes idle streams so abandoned clients do not hold a poller forever. */
  maxDurationMs: number;
  /**
   * Streams open at once in this process; one more gets 429 TOO_MANY_STREAMS. They share one reader, but each
   * holds a socket and, behind a slow client, a batch of rows in memory.
   */
  maxStreams: number;
  /** A comment line after this long without an event, so proxies do not close a quiet stream as idle. */
  heartbeatMs: number;
}

/** One stream too many at once: 429 TOO_MANY_STREAMS, and the client waits 10 s before trying again. */
const STREAMS_BUSY: LimitRefusal = {
  code: 'TOO_MANY_STREAMS',
  message: (open, max) => `${open} streams are open here (at most ${max}).`,
  retryAfterSeconds: 10,
};

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
      runId: row.runId,
      stage: row.stage,
      createdAt: row.createdAt,
      payload: row.payload,
      verbose: verbose ? message : null,
    },
    row.auditId
  );
}

/**
 * Writes one chunk, and when the client reads slower than rows arrive, waits until it has taken what
 * is buffered (or is gone): a stalled reader holds one chunk in memory, not every row since it stalled.
 */
async function write(raw: ServerResponse, chunk: string, shutdown: AbortSignal): Promise<void> {
  // A batch still being written when the stream ends (time is up, the API closes) stops here.
  if (raw.writableEnded || raw.destroyed) return;
  if (raw.write(chunk) || raw.destroyed || shutdown.aborted) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      raw.off('drain', done);
      raw.off('close', done);
      shutdown.removeEventListener('abort', done);
      resolve();
    };
    raw.on('drain', done);
    raw.on('close', done);
    shutdown.addEventListener('abort', done);
  });
}

interface Stream {
  request: FastifyRequest;
  raw: ServerResponse;
  feed: AuditFeed;
  id: string;
  opts: StreamOptions;
  /** Aborted when the API closes: every stream ends at once, and its client resumes elsewhere (Last-Event-ID). */
  shutdown: AbortSignal;
}

/**
 * Sends the conversation's audit rows after Last-Event-ID as the feed hands them over, until the client
 * leaves, time is up or the API closes; a comment line when nothing was sent for `heartbeatMs`.
 */
async function serve({ request, raw, feed, id, opts, shutdown }: Stream): Promise<void> {
  let lastWrite = Date.now();
  const send = async (chunk: string) => {
    await write(raw, chunk, shutdown);
    lastWrite = Date.now();
  };
  const unsubscribe = feed.subscribe(id, Number(request.headers['last-event-id'] ?? 0), async (rows) => {
    for (const row of rows) await send(auditEvent(row));
  });
  try {
    const started = Date.now();
    while (!raw.destroyed && !shutdown.aborted && Date.now() - started < opts.maxDurationMs) {
      if (Date.now() - lastWrite >= opts.heartbeatMs) await send(': keep-alive\n\n');
      await sleep(opts.pollIntervalMs, undefined, { signal: shutdown }).catch(() => undefined);
    }
  } finally {
    unsubscribe();
  }
}

/** GET the stream: one conversation's audit rows as server-sent events. */
const streamRoute = {
  method: 'GET',
  url: '/api/v1/conversation/:id/stream',
  // HEAD would open the stream and hold one of its slots with no body ever sent.
  exposeHeadRoute: false,
  summary:
    'Server-sent events: the conversation audit trail as it is written. A comment line keeps a quiet stream ' +
    'open; beyond STREAM_MAX_CONNECTIONS open streams per API process, 429 TOO_MANY_STREAMS with Retry-After.',
  schema: {
    params: conversationIdParams,
    // The audit id of the last event a client saw, as we sent it; anything else is refused, not read as 0.
    headers: { type: 'object', properties: { 'last-event-id': { type: 'string', pattern: '^[0-9]{1,15}$' } } },
    response: {
      200: textResponse('text/event-stream', 'CONNECTED, then one event per audit row; `id` is its audit id.'),
      ...busyResponse(STREAMS_BUSY, 'STREAM_MAX_CONNECTIONS streams are open in this API process already'),
      ...CONVERSATION_GONE,
    },
  },
} as const;

/**
 * SSE of audit rows as they are written (reference §9.4): `CONNECTED` first, then one event per
 * row named by its stage. Rows are read by id (api/audit-feed.ts), so a reconnecting client resumes
 * with Last-Event-ID and misses nothing.
 */
export function streamRoutes(
  app: FastifyInstance,
  ports: ApiPorts,
  docs: OpenApiRegistry,
  opts: StreamOptions,
  limitMetrics?: LimitMetrics
): void {
  const streams = new ConcurrencyLimit('audit_streams', opts.maxStreams, STREAMS_BUSY, limitMetrics);
  const shutdown = shutdownOnClose(app, opts.maxStreams);
  const feed = new AuditFeed(ports.conversations, { pollIntervalMs: opts.pollIntervalMs, log: app.log, shutdown });
  route(app, docs, streamRoute, async (request, reply) => {
    await streams.run(reply, () =>
      onConversationNamed((request.params as { id: string }).id, async (id) => {
        await requireConversation(ports, id);
        // Its request line: Fastify's as the stream finishes, observability/closed-request-log.ts's if its client leaves.
        reply.hijack();
        await runStream({ request, raw: reply.raw, feed, id, opts, shutdown });
      })
    );
  });
}

/** The signal every stream (and the feed) ends on, aborted as the API closes. */
function shutdownOnClose(app: FastifyInstance, maxStreams: number): AbortSignal {
  const shutdown = new AbortController();
  // Each open stream listens on it twice at most (its poll sleep, a write waiting on a slow reader), and the
  // stream limit bounds them: above Node's default of 10 listeners it warned of a leak that is not one.
  setMaxListeners(2 * maxStreams + 10, shutdown.signal);
  app.addHook('preClose', async () => shutdown.abort());
  return shutdown.signal;
}

/** One hijacked response, from its headers and `CONNECTED` to its end. */
async function runStream(open: Stream): Promise<void> {
  const { raw, id, shutdown } = open;
  // `close`: the socket goes with the stream's end. Kept alive, it would idle until the keep-alive
  // timeout, and hold a closing API open that long.
  raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
  await write(raw, sseEvent('CONNECTED', { conversationId: id, transport: 'SSE' }), shutdown);
  await serve(open);
  raw.end();
}
