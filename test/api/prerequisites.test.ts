/**
 * `convengine api` and `convengine worker` on a database without the migrations and a namespace without the
 * turn search attributes: they start, log each missing prerequisite with its fix, answer /readyz 503 with a
 * reason per dependency and refuse a message with 503 and a specific code, until an operator runs
 * `migrate` and `setup-temporal`, which makes them ready without a restart.
 */
import { Connection } from '@temporalio/client';
import { startApiServer, type ApiServer } from '../../api/server';
import { setupTemporalNamespace } from '../../cli/temporal/setup';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { migrate } from '../../db/migrate';
import { startDevServer, type DevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import {
  NAMESPACE_MISSING,
  namespaceMissing,
  NOT_MIGRATED,
  refusedConfigWarning,
  SEARCH_ATTRIBUTES_MISSING,
} from '../../observability/prerequisites';
import { configVersionOf, readConfigRows } from '../../db/config/load';
import { createConfigStore } from '../../db/config/store';
import { seedPacks } from '../../db/seed';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { StoppedBeforeNamespaceError, WAITING_FOR_NAMESPACE } from '../../worker/namespace-wait';
import { freePort } from '../../cli/temporal/server';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog, type LogCapture } from '../support/log-capture';
import { getTestTemporal, usingRealServer, type TestTemporal } from '../support/temporal';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

jest.setTimeout(120_000);

interface Readyz {
  status: number;
  checks: Record<string, string>;
  warnings?: Record<string, string>;
}

async function readyz(baseUrl: string): Promise<Readyz> {
  const res = await fetch(`${baseUrl}/readyz`);
  const { checks, warnings } = (await res.json()) as Omit<Readyz, 'status'>;
  return { status: res.status, checks, ...(warnings ? { warnings } : {}) };
}

async function sendMessage(api: ApiServer): Promise<{ status: number; code: unknown }> {
  const res = await fetch(`${api.url}/api/v1/conversation/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'hello' }),
  });
  return { status: res.status, code: ((await res.json()) as { error?: { code?: string } }).error?.code };
}

async function heldTurns(api: ApiServer): Promise<{ status: number; code: unknown; retryAfter: string | null }> {
  const res = await fetch(`${api.url}/api/v1/admin/turns/held`);
  const code = ((await res.json()) as { error?: { code?: string } }).error?.code;
  return { status: res.status, code, retryAfter: res.headers.get('retry-after') };
}

describe('api and worker without their prerequisites', () => {
  // Our dev server's namespace starts without custom search attributes, as a `temporal server start-dev` does.
  let server: DevServer;
  let bare: TestDatabase;
  let api: ApiServer;
  let worker: RunningWorker;
  let apiLog: LogCapture;
  let workerLog: LogCapture;
  beforeAll(async () => {
    server = await startDevServer({ port: 0 });
    bare = await createTestDatabase({ migrated: false });
    const env = loadEnv({
      DATABASE_URL: bare.url,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      TEMPORAL_NAMESPACE: server.namespace,
      TEMPORAL_TASK_QUEUE: `prerequisites-${process.pid}`,
    });
    const temporal = localTemporal(server.address);
    apiLog = captureLog();
    workerLog = captureLog();
    const logger = (log: LogCapture) =>
      createLogger({ level: 'info', format: 'json', name: 'test', destination: log.stream });
    api = await startApiServer({
      env,
      databaseUrl: bare.url,
      temporal,
      host: '127.0.0.1',
      port: 0,
      logger: logger(apiLog),
      prerequisiteCacheMs: 0,
    });
    worker = await runTurnWorker({
      env,
      databaseUrl: bare.url,
      temporal,
      toolEnv: {},
      logger: logger(workerLog),
      probe: { host: '127.0.0.1', port: 0 },
      prerequisiteCacheMs: 0,
    });
  });
  afterAll(async () => {
    await api?.close({ drainMs: 0 });
    await worker?.shutdown();
    await bare?.drop();
    await server?.stop();
  });

  it('log each missing prerequisite with its fix at start', () => {
    for (const log of [apiLog, workerLog]) {
      const errors = log.lines().filter((l) => l['level'] === 'error');
      const messages = errors.map((l) => String(l['msg']));
      expect(messages).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^the database lacks \d+ migration\(s\) this build needs: run `convengine migrate`$/),
          expect.stringMatching(
            /lacks the turn search attributes ConversationId, .*: run `convengine setup-temporal`$/
          ),
        ])
      );
    }
  });

  it('are not ready and refuse a message with 503 until migrate and setup-temporal have run', async () => {
    const notMigrated = { database: NOT_MIGRATED, temporal: SEARCH_ATTRIBUTES_MISSING };
    expect(await readyz(api.url)).toMatchObject({ status: 503, checks: notMigrated });
    expect(await readyz(worker.probeUrl!)).toMatchObject({ status: 503, checks: { ...notMigrated, worker: 'ok' } });
    expect(await sendMessage(api)).toEqual({ status: 503, code: 'DATABASE_NOT_MIGRATED' });

    await migrate(bare.pool);
    expect(await readyz(api.url)).toMatchObject({
      status: 503,
      checks: { database: 'ok', temporal: SEARCH_ATTRIBUTES_MISSING },
    });
    expect(await sendMessage(api)).toEqual({ status: 503, code: 'SEARCH_ATTRIBUTES_MISSING' });

    const connection = await Connection.connect({ address: server.address });
    try {
      await setupTemporalNamespace(connection, { namespace: server.namespace });
    } finally {
      await connection.close();
    }
    expect(await readyz(worker.probeUrl!)).toEqual({
      status: 200,
      checks: { database: 'ok', temporal: 'ok', tools: 'ok', worker: 'ok' },
    });
    expect(await readyz(api.url)).toEqual({ status: 200, checks: { database: 'ok', temporal: 'ok', worker: 'ok' } });
  });

  it('stay ready on a database a newer build migrated and on refused config, and say so in warnings and the log', async () => {
    const ready = { database: 'ok', temporal: 'ok', worker: 'ok' };
    const workerReady = { ...ready, tools: 'ok' };
    await bare.pool.query("INSERT INTO ce_schema_migrations (name, checksum) VALUES ('0020_future.sql', 'x')");
    const newer = { database: 'migrated by a newer build (0020_future.sql)' };
    expect(await readyz(api.url)).toEqual({ status: 200, checks: ready, warnings: newer });
    expect(await readyz(worker.probeUrl!)).toEqual({ status: 200, checks: workerReady, warnings: newer });
    for (const log of [apiLog, workerLog]) {
      const warned = log.lines().filter((l) => l['level'] === 'warn' && l['dependency'] === 'database');
      expect(warned.map((l) => l['msg'])).toEqual([
        expect.stringMatching(/^the database has 1 migration\(s\) this build does not know \(0020_future\.sql\)/),
      ]);
    }
    await bare.pool.query("DELETE FROM ce_schema_migrations WHERE name = '0020_future.sql'");

    await seedPacks(bare.db, ['faq']);
    await createConfigStore(bare.db).current(); // in service once, so stored
    const served = configVersionOf(await readConfigRows(bare.db));
    await bare.pool.query("UPDATE ce_rule SET match_pattern = '(?i)([a-' WHERE rule_id = 10");
    await new Promise((resolve) => setTimeout(resolve, 250)); // the stores' staleness check
    const refused = { config: refusedConfigWarning(served) };
    expect(await readyz(api.url)).toEqual({ status: 200, checks: ready, warnings: refused });
    expect(await readyz(worker.probeUrl!)).toEqual({ status: 200, checks: workerReady, warnings: refused });
  });

  it('refuse a message with 503 TEMPORAL_UNREACHABLE, at once, while Temporal is down', async () => {
    await server.stop();
    const started = Date.now();
    expect(await sendMessage(api)).toEqual({ status: 503, code: 'TEMPORAL_UNREACHABLE' });
    // Refused from the prerequisite check, not after the client's own retries of a start (about 19 s).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await readyz(api.url)).status).toBe(503);
  });
});

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
