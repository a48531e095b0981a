import { get as httpGet, type IncomingMessage } from 'node:http';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../api/app';
import type { ApiPorts, ConversationView } from '../../api/ports';
import { createLogger } from '../../observability/logger';
import { setupTracing, TRACER_NAME, type Tracing } from '../../observability/tracing';
import { sendMessageAndLeave } from '../support/caller-gone';
import { fakePorts } from '../support/fake-ports';
import { captureLog, type LogCapture } from '../support/log-capture';

const CONVERSATION = '3c9a1f0e-2b4d-4e6f-8a7b-9c0d1e2f3a4b';
const STREAM_ROUTE = 'GET /api/v1/conversation/:id/stream';
const MESSAGE_ROUTE = 'POST /api/v1/conversation/message';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The conversation read behind a span of its own, as the real one describes the turn workflow in Temporal. */
function tracedPorts(overrides: Partial<ApiPorts> = {}): ApiPorts {
  const base = fakePorts({ conversationId: CONVERSATION, audits: async () => [] });
  const conversation = async (id: string) =>
    trace.getTracer(TRACER_NAME).startActiveSpan('DescribeWorkflow', async (span) => {
      span.end();
      return id === CONVERSATION ? ({ conversationId: id } as unknown as ConversationView) : null;
    });
  return { ...base, conversations: { ...base.conversations, conversation }, ...overrides };
}

/** The API's server spans and log lines; the streams end by themselves after `streamMaxDurationMs`. */
async function listen(ports: ApiPorts, log: LogCapture): Promise<{ app: FastifyInstance; url: string }> {
  const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
  const app = buildApi({ ports, logger, messageMaxBytes: 8192, streamPollIntervalMs: 20, streamMaxDurationMs: 300 });
  return { app, url: await app.listen({ host: '127.0.0.1', port: 0 }) };
}

const open = (url: string) =>
  new Promise<IncomingMessage>((resolve, reject) => httpGet(url, resolve).on('error', reject));

/** The finished spans once `done` holds of them, or after 10 s (the test's assertions then say what is missing). */
async function spansWhen(exporter: InMemorySpanExporter, done: (spans: ReadableSpan[]) => boolean) {
  for (let i = 0; i < 500 && !done(exporter.getFinishedSpans()); i++) await sleep(20);
  return exporter.getFinishedSpans();
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const completedLines = (log: LogCapture, path: string) =>
  log.lines().filter((l) => l['msg'] === 'request completed' && requestPaths(log).get(String(l['requestId'])) === path);
/** Each request id's path, from its "incoming request" line. */
const requestPaths = (log: LogCapture) =>
  new Map(
    log
      .lines()
      .filter((l) => l['msg'] === 'incoming request')
      .map((l) => [String(l['requestId']), String((l['req'] as { url: string }).url)])
  );

describe('server spans and request lines of every request (observability/http-tracing.ts)', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | null;
  const streamPath = `/api/v1/conversation/${CONVERSATION}/stream`;

  beforeAll(() => {
    tracing = setupTracing({ serviceName: 'convengine-test', spanProcessor: new SimpleSpanProcessor(exporter) });
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    await tracing?.shutdown();
  });

  it('a stream that ran its course: one server span with its status, parent of its reads, and one request line', async () => {
    const log = captureLog();
    const { app, url } = await listen(tracedPorts(), log);
    try {
      const res = await open(`${url}${streamPath}`);
      expect(res.statusCode).toBe(200);
      res.resume();
      await new Promise((resolve) => res.on('close', resolve));
      const spans = await spansWhen(exporter, (all) => named(all, STREAM_ROUTE).length > 0);
      const [server] = named(spans, STREAM_ROUTE);
      expect(server?.attributes).toMatchObject({ 'http.response.status_code': 200 });
      const [read] = named(spans, 'DescribeWorkflow');
      expect(read?.parentSpanId).toBe(server?.spanContext().spanId);
      expect(read?.spanContext().traceId).toBe(server?.spanContext().traceId);
      await sleep(100);
      expect(named(exporter.getFinishedSpans(), STREAM_ROUTE)).toHaveLength(1);
      const lines = completedLines(log, streamPath);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ res: { statusCode: 200 }, responseTime: expect.any(Number) });
      expect(lines[0]?.['responseTime']).toBeGreaterThanOrEqual(300);
    } finally {
      await app.close();
    }
  });

  it('a stream its client left: the span and the request line, once', async () => {
    const log = captureLog();
    const { app, url } = await listen(tracedPorts(), log);
    try {
      const res = await open(`${url}${streamPath}`);
      expect(res.statusCode).toBe(200);
      res.destroy();
      await spansWhen(exporter, (all) => named(all, STREAM_ROUTE).length > 0);
      // Past the stream's own end: nothing ends it a second time.
      await sleep(500);
      const servers = named(exporter.getFinishedSpans(), STREAM_ROUTE);
      expect(servers).toHaveLength(1);
      expect(servers[0]?.attributes).toMatchObject({ 'http.response.status_code': 200 });
      const lines = completedLines(log, streamPath);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ res: { statusCode: 200 }, clientClosed: true });
    } finally {
      await app.close();
    }
  });

  it('a request whose caller left before any answer: its span ends, without a status', async () => {
    let reached: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (reached = resolve));
    const base = tracedPorts();
    // The turn never answers: only the caller's leaving ends the request.
    const turns = { ...base.turns, sendMessage: () => (reached(), new Promise<never>(() => undefined)) };
    const { app, url } = await listen({ ...base, turns }, captureLog());
    try {
      await sendMessageAndLeave(url, waiting);
      const [server] = named(await spansWhen(exporter, (all) => named(all, MESSAGE_ROUTE).length > 0), MESSAGE_ROUTE);
      expect(server?.attributes['http.response.status_code']).toBeUndefined();
      expect(server?.attributes['error.type']).toBe('client_disconnected');
    } finally {
      await app.close();
    }
  });
});
