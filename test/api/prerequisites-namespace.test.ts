/**
 * `convengine api` and `convengine worker` on a namespace that does not exist yet (setup-temporal not run): they
 * start, say so with the fix, answer /readyz 503 and refuse a message with 503 TEMPORAL_NAMESPACE_MISSING, until
 * `setup-temporal` creates it, which makes both ready without a restart. A database without the migrations and a
 * namespace without the turn search attributes are in prerequisites.test.ts.
 */
import { Connection } from '@temporalio/client';
import { startApiServer, type ApiServer } from '../../api/server';
import { setupTemporalNamespace } from '../../cli/temporal/setup';
import { freePort } from '../../cli/temporal/server';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { startDevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import { NAMESPACE_MISSING, namespaceMissing } from '../../observability/prerequisite-problems';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { StoppedBeforeNamespaceError, WAITING_FOR_NAMESPACE } from '../../worker/namespace-wait';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog, type LogCapture } from '../support/log-capture';
import { getTestTemporal, usingRealServer, type TestTemporal } from '../support/temporal';
import { readyz, sendMessage } from './prerequisites-probes';

jest.setTimeout(120_000);

async function heldTurns(api: ApiServer): Promise<{ status: number; code: unknown; retryAfter: string | null }> {
  const res = await fetch(`${api.url}/api/v1/admin/turns/held`);
  const code = ((await res.json()) as { error?: { code?: string } }).error?.code;
  return { status: res.status, code, retryAfter: res.headers.get('retry-after') };
}

describe('api and worker on a namespace that does not exist (setup-temporal not run)', () => {
  // The dev server, or the real one in `npm run test:temporal`: both answer NOT_FOUND for an unknown namespace.
  let temporal: TestTemporal;
  let db: TestDatabase;
  let api: ApiServer;
  const namespace = `missing-${process.pid}-${Date.now()}`;
  const apiLog = captureLog();
  let run: Parameters<typeof runTurnWorker>[0];
  beforeAll(async () => {
    temporal = await getTestTemporal();
    db = await createTestDatabase();
    await seedPacks(db.db, ['faq']); // a config to answer with: on an empty one every message is refused CONFIG_EMPTY
    const env = loadEnv({
      DATABASE_URL: db.url,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: `no-namespace-${process.pid}`,
    });
    const settings = localTemporal(temporal.address);
    const logger = createLogger({ level: 'info', format: 'json', name: 'test', destination: apiLog.stream });
    api = await startApiServer({
      env,
      databaseUrl: db.url,
      temporal: settings,
      port: 0,
      logger,
      prerequisiteCacheMs: 0,
    });
    run = { env, databaseUrl: db.url, temporal: settings, toolEnv: {}, probe: { host: '127.0.0.1', port: 0 } };
  });
  afterAll(async () => {
    await api?.close({ drainMs: 0 });
    await db?.drop();
    await temporal?.stop();
  });

  it('the API is up, not ready, names the fix, and refuses with 503 TEMPORAL_NAMESPACE_MISSING, never a 500', async () => {
    const errors = apiLog.lines().filter((l) => l['level'] === 'error' && l['dependency'] === 'temporal');
    expect(errors.map((l) => l['msg'])).toEqual([namespaceMissing(namespace)]);
    expect(await readyz(api.url)).toEqual({
      status: 503,
      checks: { database: 'ok', temporal: NAMESPACE_MISSING, worker: 'no worker polling' },
    });
    expect(await sendMessage(api)).toEqual({ status: 503, code: 'TEMPORAL_NAMESPACE_MISSING' });
    expect(await heldTurns(api)).toEqual({ status: 503, code: 'TEMPORAL_NAMESPACE_MISSING', retryAfter: '5' });
  });

  /** A worker started before the namespace exists, waiting for it, with its probe on `port`. */
  function waitingWorker(port: number, stop: AbortSignal, log: LogCapture): Promise<RunningWorker> {
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: log.stream });
    return runTurnWorker({
      ...run,
      logger,
      probe: { host: '127.0.0.1', port },
      prerequisiteCacheMs: 0,
      namespaceWait: stop,
    });
  }
  const waitingLine = `${namespaceMissing(namespace)}; waiting for it (not ready until then)`;

  /** convengine_worker_namespace_waiting on the worker's /metrics. */
  async function namespaceWaiting(probeUrl: string): Promise<string | undefined> {
    const text = await (await fetch(`${probeUrl}/metrics`)).text();
    return /^convengine_worker_namespace_waiting\{component="worker"\} (\S+)$/m.exec(text)?.[1];
  }

  async function until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`not within 30 s: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('a worker waiting for the namespace is up, not ready, says so, and stops when asked, with nothing left open', async () => {
    const log = captureLog();
    const port = await freePort();
    const stop = new AbortController();
    const starting = waitingWorker(port, stop.signal, log);
    const outcome = starting.then(
      () => 'started',
      (err: unknown) => err
    );
    await until(() => log.lines().some((l) => l['msg'] === waitingLine), 'the waiting line');
    expect(log.lines().filter((l) => l['msg'] === waitingLine)).toHaveLength(1);
    expect(await readyz(`http://127.0.0.1:${port}`)).toEqual({
      status: 503,
      checks: { database: 'ok', temporal: NAMESPACE_MISSING, tools: 'ok', worker: WAITING_FOR_NAMESPACE },
    });
    // No metric said a worker was waiting for its namespace: an alert had only /readyz and the log to go on.
    expect(await namespaceWaiting(`http://127.0.0.1:${port}`)).toBe('1');
    stop.abort();
    expect(await outcome).toBeInstanceOf(StoppedBeforeNamespaceError);
    await expect(fetch(`http://127.0.0.1:${port}/readyz`)).rejects.toThrow();
  });

  it('both turn ready once the namespace exists (setup-temporal has run), with no restart of either', async () => {
    const log = captureLog();
    const port = await freePort();
    const stop = new AbortController();
    const starting = waitingWorker(port, stop.signal, log);
    let worker: RunningWorker | undefined;
    try {
      await until(() => log.lines().some((l) => l['msg'] === waitingLine), 'the waiting line');
      expect(await namespaceWaiting(`http://127.0.0.1:${port}`)).toBe('1');
      if (usingRealServer) {
        const connection = await Connection.connect({ address: temporal.address });
        try {
          await setupTemporalNamespace(connection, { namespace });
        } finally {
          await connection.close();
        }
      } else {
        // Our dev server serves one namespace and creates no other: the same server, now serving this one.
        await temporal.stop();
        const port = Number(temporal.address.slice(temporal.address.lastIndexOf(':') + 1));
        const server = await startDevServer({ port, namespace, searchAttributes: { ...TURN_SEARCH_ATTRIBUTES } });
        temporal = { address: server.address, namespace, stop: () => server.stop() };
      }
      worker = await starting;
      expect(log.lines().map((l) => l['msg'])).toContain(`namespace ${namespace} exists now: the worker starts`);
      const ready = { status: 200, checks: { database: 'ok', temporal: 'ok', worker: 'ok' } };
      // A real server lists the worker's poller only after its first poll reaches matching.
      const deadline = Date.now() + 30_000;
      while ((await readyz(api.url)).status !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(await readyz(api.url)).toEqual(ready);
      expect(await readyz(worker.probeUrl!)).toEqual({ ...ready, checks: { ...ready.checks, tools: 'ok' } });
      expect(await namespaceWaiting(worker.probeUrl!)).toBe('0');
    } finally {
      stop.abort();
      await (worker ?? (await starting.catch(() => undefined)))?.shutdown();
    }
  });
});
