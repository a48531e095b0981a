/**
 * `convengine api` and `convengine worker` while PostgreSQL or Temporal is away (a TCP switch in front of each):
 * /readyz and /metrics answer within the dependency check deadline, well inside a probe's or Prometheus's own timeout
 * (Temporal's client retries for about 19 s, the pool waits 10 s for a connection), and every route answers a lost
 * database, or one refusing sessions, with 503 DATABASE_UNREACHABLE and retry-after, never a 500.
 */
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { startApiServer, type ApiServer } from '../../api/server';
import { setupTemporalNamespace } from '../../cli/temporal/setup';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { createLogger } from '../../observability/logger';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { createTestDatabase, setAcceptingConnections, type TestDatabase } from '../support/database';
import { captureLog } from '../support/log-capture';
import { parseMetrics, sumOf } from '../support/prometheus-text';
import { startTcpSwitch, type TcpSwitch } from '../support/tcp-switch';
import { getTestTemporal, type TestTemporal } from '../support/temporal';

jest.setTimeout(120_000);

/** Well under Prometheus's default scrape_timeout (10 s) and the 10 s to 19 s the checks took without a deadline. */
const PROMPT_MS = 6_000;

async function timedGet(url: string): Promise<{ status: number; text: string; ms: number; retryAfter: string | null }> {
  const started = Date.now();
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, text, ms: Date.now() - started, retryAfter: res.headers.get('retry-after') };
}

/**
 * /readyz once it is 200, within 15 s: a real Temporal server lists the worker's poller only after its first poll
 * reaches matching, so readiness's `worker` check may say "no worker polling" for a moment after the worker started.
 */
async function untilReady(url: string): Promise<{ status: number; text: string }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ready = await timedGet(url);
    if (ready.status === 200 || Date.now() > deadline) return ready;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Each route's answer: 503 DATABASE_UNREACHABLE with retry-after, never a 500. */
async function expectDatabaseUnreachable(apiUrl: string, routes: string[]): Promise<void> {
  for (const route of routes) {
    const res = await timedGet(`${apiUrl}${route}`);
    expect({ route, status: res.status, retryAfter: res.retryAfter }).toEqual({ route, status: 503, retryAfter: '5' });
    expect(JSON.parse(res.text)).toEqual({
      error: { code: 'DATABASE_UNREACHABLE', message: 'The database is unreachable; retry later.' },
    });
  }
}

const TURNS = 'convengine_turn_duration_seconds_count';
const ERROR = { outcome: 'ERROR' };

const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));

describe('api and worker while a dependency is down', () => {
  let temporal: TestTemporal;
  let db: TestDatabase;
  let temporalSwitch: TcpSwitch;
  let dbSwitch: TcpSwitch;
  let api: ApiServer;
  let apiClosed = false;
  let worker: RunningWorker;
  const apiLog = captureLog();
  beforeAll(async () => {
    temporal = await getTestTemporal();
    db = await createTestDatabase();
    const connection = await Connection.connect({ address: temporal.address });
    try {
      await setupTemporalNamespace(connection, { namespace: temporal.namespace });
    } finally {
      await connection.close();
    }
    temporalSwitch = await startTcpSwitch(portOf(temporal.address));
    dbSwitch = await startTcpSwitch(Number(new URL(db.url).port));
    const databaseUrl = Object.assign(new URL(db.url), { port: String(dbSwitch.port) }).toString();
    const env = loadEnv({
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      TEMPORAL_NAMESPACE: temporal.namespace,
      TEMPORAL_TASK_QUEUE: `outage-${process.pid}`,
    });
    const settings = localTemporal(temporalSwitch.address);
    const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: apiLog.stream });
    // Every probe checks the prerequisites again, so each check below runs while the dependency is away.
    api = await startApiServer({
      env,
      databaseUrl,
      temporal: settings,
      host: '127.0.0.1',
      port: 0,
      prerequisiteCacheMs: 0,
      logger,
    });
    worker = await runTurnWorker({
      env,
      databaseUrl,
      temporal: settings,
      toolEnv: {},
      probe: { host: '127.0.0.1', port: 0 },
      prerequisiteCacheMs: 0,
    });
  });
  afterAll(async () => {
    temporalSwitch?.set('pass');
    dbSwitch?.set('pass');
    if (!apiClosed) await api?.close({ drainMs: 0 });
    await worker?.shutdown();
    await Promise.all([temporalSwitch?.stop(), dbSwitch?.stop()]);
    await db?.drop();
    await temporal?.stop();
  });

  it('while Temporal is down: /metrics serves every other series and /readyz answers 503, promptly', async () => {
    expect(await untilReady(`${api.url}/readyz`)).toMatchObject({ status: 200 });
    temporalSwitch.set('down');
    try {
      const metrics = await timedGet(`${api.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.ms).toBeLessThan(PROMPT_MS);
      const series = parseMetrics(metrics.text);
      expect(series.get('convengine_pending_approvals{component="api"}')).toBeNaN();
      expect([...series.keys()].some((k) => k.startsWith('convengine_api_limit_in_use{'))).toBe(true);
      expect([...series.keys()].some((k) => k.startsWith('process_cpu_seconds_total{'))).toBe(true);

      for (const base of [api.url, worker.probeUrl!]) {
        const ready = await timedGet(`${base}/readyz`);
        expect(ready.status).toBe(503);
        expect(JSON.parse(ready.text)).toMatchObject({ checks: { temporal: 'unreachable' } });
        expect(ready.ms).toBeLessThan(PROMPT_MS);
      }
    } finally {
      temporalSwitch.set('pass');
    }
  });

  it('while the database does not answer: /readyz and a message are refused with 503, promptly', async () => {
    dbSwitch.set('blackhole');
    try {
      for (const base of [api.url, worker.probeUrl!]) {
        const ready = await timedGet(`${base}/readyz`);
        expect(ready.status).toBe(503);
        expect(JSON.parse(ready.text)).toMatchObject({ checks: { database: 'unreachable' } });
        expect(ready.ms).toBeLessThan(PROMPT_MS);
      }
      const errors = async () => sumOf(parseMetrics((await timedGet(`${api.url}/metrics`)).text), TURNS, ERROR);
      const errorsBefore = await errors();
      const started = Date.now();
      const res = await fetch(`${api.url}/api/v1/conversation/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello' }),
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('DATABASE_UNREACHABLE');
      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
      // A turn request refused with a 5xx is a turn that failed as its caller sees it.
      expect((await errors()) - errorsBefore).toBe(1);
    } finally {
      // Down first: the connections the blackhole held fail now, not at the pool's connect timeout.
      dbSwitch.set('down');
      dbSwitch.set('pass');
    }
  });

  it('while the database is down: every route answers 503 DATABASE_UNREACHABLE with retry-after', async () => {
    const id = randomUUID();
    const routes = [`/api/v1/conversation/${id}`, `/api/v1/conversation/audit/${id}`, '/api/v1/console/conversations'];
    dbSwitch.set('down');
    try {
      await expectDatabaseUnreachable(api.url, routes);
    } finally {
      dbSwitch.set('pass');
    }
    expect((await timedGet(`${api.url}/api/v1/conversation/${id}`)).status).toBe(404);
    const errors = apiLog.lines().filter((l) => l['level'] === 'error' && l['msg'] === 'database unreachable');
    expect(errors.length).toBeGreaterThanOrEqual(routes.length);
  });

  it('while the database refuses sessions (ALLOW_CONNECTIONS false): reads answer 503 DATABASE_UNREACHABLE', async () => {
    const id = randomUUID();
    const routes = [`/api/v1/conversation/${id}`, '/api/v1/console/conversations'];
    await setAcceptingConnections(db.name, false);
    try {
      await expectDatabaseUnreachable(api.url, routes);
    } finally {
      await setAcceptingConnections(db.name, true);
    }
    const logged = apiLog.lines().filter((l) => l['msg'] === 'database unreachable');
    expect(logged.some((l) => (l['err'] as { sqlState?: string } | undefined)?.sqlState === '55000')).toBe(true);
    expect((await timedGet(`${api.url}/api/v1/conversation/${id}`)).status).toBe(404);
  });

  it('stops while Temporal is down and a probe has given up on a call the client still retries', async () => {
    temporalSwitch.set('down');
    expect((await timedGet(`${api.url}/readyz`)).status).toBe(503);
    apiClosed = true;
    await api.close({ drainMs: 0 });
    // The client retries a call given up at its deadline once more, within a back-off of at most 5 s: on a closed
    // connection that retry would throw, uncaught.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  });
});
