/**
 * A request whose caller leaves before the answer has its one `request completed` line (observability/
 * closed-request-log.ts), which Fastify never wrote for it: an SRE counting requests from the log missed it. No
 * tracing here: the line does not depend on it.
 */
import { request as httpRequest } from 'node:http';
import { buildApi } from '../../api/app';
import type { ApiPorts } from '../../api/ports';
import { createLogger } from '../../observability/logger';
import { createApiMetrics } from '../../observability/metrics';
import { sendMessageAndLeave } from '../support/caller-gone';
import { fakePorts } from '../support/fake-ports';
import { captureLog, type LogCapture } from '../support/log-capture';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function listen(turns: Partial<ApiPorts['turns']>, log: LogCapture) {
  const metrics = createApiMetrics();
  const base = fakePorts({});
  const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
  const ports = { ...base, turns: { ...base.turns, ...turns } };
  const app = buildApi({ ports, logger, messageMaxBytes: 8192, turnDuration: metrics.turnDuration });
  const counts = async () =>
    (await metrics.turnDuration.get()).values
      .filter((v) => v.metricName === 'convengine_turn_duration_seconds_count')
      .map((v) => [v.labels['outcome'], v.value]);
  return { app, url: await app.listen({ host: '127.0.0.1', port: 0 }), counts };
}

/** The request lines (Fastify's and ours) of the one request to `path`. */
function requestLines(log: LogCapture, path: string): Record<string, unknown>[] {
  const lines = log.lines();
  const incoming = lines.filter((l) => l['msg'] === 'incoming request' && (l['req'] as { url: string }).url === path);
  expect(incoming).toHaveLength(1);
  const id = incoming[0]?.['requestId'];
  return lines.filter((l) => l['requestId'] === id && /^request (completed|errored)$/.test(String(l['msg'])));
}

async function linesWhen(log: LogCapture, path: string, count: number) {
  for (let i = 0; i < 250 && requestLines(log, path).length < count; i++) await sleep(20);
  return requestLines(log, path);
}

describe('the request line of a request whose caller left (observability/closed-request-log.ts)', () => {
  const path = '/api/v1/conversation/message';

  it('a caller gone before any answer: one line, without a status, saying the client closed', async () => {
    const log = captureLog();
    let reached: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (reached = resolve));
    // The turn never answers: only the caller's leaving ends the request.
    const { app, url } = await listen({ sendMessage: () => (reached(), new Promise<never>(() => undefined)) }, log);
    try {
      await sendMessageAndLeave(url, waiting);
      const lines = await linesWhen(log, path, 1);
      expect(lines).toEqual([expect.objectContaining({ level: 'info', msg: 'request completed', clientClosed: true })]);
      expect(lines[0]).not.toHaveProperty('res');
      expect(lines[0]?.['responseTime']).toEqual(expect.any(Number));
    } finally {
      await app.close();
    }
  });

  it('an answer sent after the caller left adds no second line, and the turn metric counts it once', async () => {
    const log = captureLog();
    let reached: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (reached = resolve));
    const late = async () => {
      reached();
      await sleep(200);
      throw new Error('Temporal unreachable');
    };
    const { app, url, counts } = await listen({ sendMessage: late }, log);
    try {
      await sendMessageAndLeave(url, waiting);
      await linesWhen(log, path, 1);
      await sleep(500); // past the late answer
      expect(requestLines(log, path)).toEqual([expect.objectContaining({ clientClosed: true })]);
      expect(await counts()).toEqual([['ERROR', 1]]);
    } finally {
      await app.close();
    }
  });

  it('a request answered in full keeps its one line from Fastify, with no clientClosed', async () => {
    const log = captureLog();
    const { app, url } = await listen({}, log);
    try {
      await new Promise<void>((resolve, reject) =>
        httpRequest(`${url}/healthz`, (res) => res.resume().on('end', resolve))
          .on('error', reject)
          .end()
      );
      const lines = await linesWhen(log, '/healthz', 1);
      await sleep(100);
      expect(requestLines(log, '/healthz')).toEqual([
        expect.objectContaining({ msg: 'request completed', res: { statusCode: 200 } }),
      ]);
      expect(lines[0]).not.toHaveProperty('clientClosed');
    } finally {
      await app.close();
    }
  });
});
