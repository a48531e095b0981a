import { spawnSync } from 'node:child_process';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApi, type ApiOptions } from '../../../api/app';
import type { ApiPorts, ConversationView } from '../../../api/ports';
import type { AuditCursor } from '../../../core/audit';
import { createLogger } from '../../../observability/logger';
import { createApiMetrics } from '../../../observability/metrics';
import { auditRow, fakePorts, type AuditsOf } from '../../support/fake-ports';
import { captureLog } from '../../support/log-capture';
import { parseMetrics, sumOf } from '../../support/prometheus-text';
import { until } from '../../support/worker-stop-stack';

const CONVERSATION = '3c9a1f0e-2b4d-4e6f-8a7b-9c0d1e2f3a4b';

const row = (auditId: number, text = 'working on it') => auditRow(CONVERSATION, auditId, { text });
const portsWith = (audits: AuditsOf) => fakePorts({ conversationId: CONVERSATION, audits });

async function listen(
  ports: ApiPorts,
  extra: Partial<ApiOptions> = {}
): Promise<{ app: FastifyInstance; url: string }> {
  const app = buildApi({
    ports,
    messageMaxBytes: 8192,
    logLevel: 'silent',
    streamPollIntervalMs: 20,
    streamMaxDurationMs: 2_000,
    ...extra,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `${url}/api/v1/conversation/${CONVERSATION}/stream` };
}

/** Opens the stream and resolves with the response as soon as the headers are in (the body still flowing). */
function open(url: string, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => httpGet(url, { headers }, resolve).on('error', reject));
}

/** A listening API whose conversation has no audit rows: a stream that only ever sends its own lines. */
const listenQuiet = (extra: Partial<ApiOptions>) =>
  listen(
    portsWith(async () => []),
    extra
  );

function bodyOf(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.on('end', () => resolve(text));
    response.on('close', () => resolve(text));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /api/v1/conversation/:id/stream (api/routes/stream.ts)', () => {
  it('holds a dozen streams open without a listener-leak warning: the stream limit bounds the listeners', () => {
    const fixture = join(__dirname, 'fixtures', 'open-streams.ts');
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', fixture, '12'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stdout.trim()).toBe(Array(12).fill('200').join(','));
    expect(run.stderr).not.toMatch(/MaxListenersExceededWarning/);
    expect(run.status).toBe(0);
  });

  it('refuses a stream beyond the cap with 429 TOO_MANY_STREAMS and Retry-After, and frees the slot when one closes', async () => {
    const metrics = createApiMetrics();
    const limitMetrics = { inUse: metrics.limitInUse, refused: metrics.limitRefused };
    const limit = async (name: string) =>
      sumOf(parseMetrics(await metrics.registry.metrics()), name, { limit: 'audit_streams' });
    const { app, url } = await listenQuiet({ streamMaxConnections: 2, limitMetrics });
    try {
      expect(await limit('convengine_api_limit_in_use')).toBe(0);
      const first = await open(url);
      const second = await open(url);
      expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
      expect(await limit('convengine_api_limit_in_use')).toBe(2);
      const refused = await open(url);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('10');
      expect(JSON.parse(await bodyOf(refused))).toEqual({
        error: { code: 'TOO_MANY_STREAMS', message: '2 streams are open here (at most 2).' },
      });

      first.destroy();
      let again = await open(url);
      for (let i = 0; i < 50 && again.statusCode === 429; i++) {
        again.resume();
        await sleep(20);
        again = await open(url);
      }
      expect(again.statusCode).toBe(200);
      expect(await limit('convengine_api_limit_refused_total')).toBeGreaterThanOrEqual(1);
      again.destroy();
      second.destroy();
      for (let i = 0; i < 50 && (await limit('convengine_api_limit_in_use')) > 0; i++) await sleep(20);
      expect(await limit('convengine_api_limit_in_use')).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('sends a comment line on a quiet stream, so proxies keep it open', async () => {
    // Twenty heartbeats fit the stream's life; three must arrive even when a loaded machine delays most timers.
    const { app, url } = await listenQuiet({ streamHeartbeatMs: 100, streamMaxDurationMs: 2_000 });
    try {
      const body = await bodyOf(await open(url));
      expect(body.startsWith('event: CONNECTED\n')).toBe(true);
      expect(body.split(': keep-alive\n\n').length - 1).toBeGreaterThanOrEqual(3);
    } finally {
      await app.close();
    }
  });

  it('stops reading rows while a client does not take what was sent, instead of buffering every row', async () => {
    let polls = 0;
    const big = 'x'.repeat(1024 * 1024);
    const { app, url } = await listen(
      portsWith(async (_id, after = 0) => {
        polls += 1;
        return [row(after + 1, big)];
      }),
      // Open past any delay a loaded machine adds: a stream that reached its end would poll no more on resume.
      { streamMaxDurationMs: 120_000 }
    );
    try {
      const stalled = await open(url);
      stalled.pause();
      await sleep(600);
      // At 20 ms a poll, an unbounded writer would have queued ~30 rows of 1 MiB by now.
      expect(polls).toBeLessThanOrEqual(6);
      const before = polls;
      let received = 0;
      stalled.on('data', (chunk: Buffer) => (received += chunk.length));
      stalled.resume();
      await until(() => polls > before && received > 1024 * 1024, 'reading to resume once the client takes rows');
      stalled.destroy();
    } finally {
      await app.close();
    }
  });

  it('ends every open stream when the API closes, so a restart does not wait for them', async () => {
    const { app, url } = await listenQuiet({ streamMaxDurationMs: 60_000 });
    const streams = [await open(url), await open(url)];
    expect(streams.map((s) => s.headers['connection'])).toEqual(['close', 'close']);
    const ended = streams.map(bodyOf);
    // Without the shutdown signal, close() waited for each stream's 60 s, then for its idle keep-alive socket.
    const closed = await Promise.race([app.close().then(() => 'closed'), sleep(5_000).then(() => 'still open')]);
    expect(closed).toBe('closed');
    for (const body of await Promise.all(ended)) expect(body.startsWith('event: CONNECTED\n')).toBe(true);
  });

  it('resumes after the Last-Event-ID a client sends, and refuses one that is not an audit id with 400', async () => {
    const asked: number[] = [];
    const { app, url } = await listen(
      portsWith(async (_id, after = 0) => {
        asked.push(after);
        return [];
      }),
      { streamMaxDurationMs: 100 }
    );
    try {
      await bodyOf(await open(url, { 'last-event-id': '41' }));
      expect(new Set(asked)).toEqual(new Set([41]));
      asked.length = 0;
      for (const hostile of ['-99999999999999999999', "1' OR '1'='1", '1e400', 'NaN', '9999999999999999', '7,8']) {
        const refused = await open(url, { 'last-event-id': hostile });
        expect({ hostile, status: refused.statusCode }).toEqual({ hostile, status: 400 });
        expect(JSON.parse(await bodyOf(refused)).error.code).toBe('VALIDATION_FAILED');
      }
      expect(asked).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('keeps a stream through a database outage and logs it once, then sends the rows', async () => {
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
    let calls = 0;
    const { app, url } = await listen(
      portsWith(async (_id, after = 0) => {
        calls += 1;
        if (calls <= 4) throw new Error('Connection terminated unexpectedly');
        return after < 2 ? [row(1), row(2)] : [];
      }),
      { logger, streamMaxDurationMs: 400 }
    );
    try {
      const body = await bodyOf(await open(url));
      expect(body.match(/^event: VERBOSE_PROGRESS$/gm)).toHaveLength(2);
      expect(body).toContain('id: 2\n');
      const warnings = log
        .raw()
        .split('\n')
        .filter((l) => l.includes('audit stream poll failed'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({ streams: 1, level: 'warn' });
      expect(body).not.toContain('Connection terminated');
    } finally {
      await app.close();
    }
  });

  it('reads the rows of every open stream in one query per poll, and hands each stream its own', async () => {
    const conversations = ['a', 'b', 'c'].map((c) => `${c.repeat(8)}-2b4d-4e6f-8a7b-9c0d1e2f3a4b`);
    const [a, b, c] = conversations as [string, string, string];
    // Conversation k has audit ids k01, k02, k03 (ids are global in the table).
    const rowsOf = (id: string) => [1, 2, 3].map((n) => auditRow(id, (conversations.indexOf(id) + 1) * 100 + n));
    const reads: AuditCursor[][] = [];
    const base = fakePorts({});
    const ports: ApiPorts = {
      ...base,
      conversations: {
        ...base.conversations,
        conversation: async (id) => (conversations.includes(id) ? ({ conversationId: id } as ConversationView) : null),
        auditsAfter: async (cursors) => {
          reads.push([...cursors]);
          return cursors.flatMap((k) => rowsOf(k.conversationId).filter((r) => r.auditId > k.afterAuditId));
        },
      },
    };
    const { app, url } = await listen(ports, { streamMaxDurationMs: 400 });
    const streamOf = (id: string, lastEventId?: string) =>
      open(url.replace(CONVERSATION, id), lastEventId ? { 'last-event-id': lastEventId } : {}).then(bodyOf);
    try {
      const bodies = await Promise.all([streamOf(a), streamOf(a, '101'), streamOf(b), streamOf(c, '303')]);
      const ids = bodies.map((body) => [...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])));
      expect(ids).toEqual([[101, 102, 103], [102, 103], [201, 202, 203], []]);
      // One read per poll for all four streams: at 20 ms for 400 ms, ~20 reads, where one per stream would be ~80.
      expect(reads.length).toBeLessThanOrEqual(30);
      for (const cursors of reads) {
        const ids = cursors.map((k) => k.conversationId);
        expect(new Set(ids).size).toBe(ids.length);
      }
      expect(reads.some((cursors) => cursors.length === 3)).toBe(true);
    } finally {
      await app.close();
    }
  });
});
