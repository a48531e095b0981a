/**
 * The API and the worker bound to their deployment (startApiServer/runTurnWorker with bindDeployment, as the CLI's
 * composition roots start them): the first binds its database, one of another deployment fails its start before it
 * touches Temporal, and a binding moved while they run makes them unready and the API refuse turns (503
 * DEPLOYMENT_MISMATCH) instead of serving another deployment's conversations. Without bindDeployment (the tests' own
 * harnesses, many task queues on one database) nothing is bound or checked.
 */
import { startApiServer, type ApiServer } from '../../api/server';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { DeploymentMismatchError, readDeploymentBinding, rebindDeployment } from '../../db/deployment';
import { seedPacks } from '../../db/seed';
import { startDevServer, type DevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import { DEPLOYMENT_MISMATCH } from '../../observability/deployment-check';
import { PREREQUISITE_MESSAGES } from '../../observability/prerequisite-problems';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog, type LogCapture } from '../support/log-capture';
import { answer, readyz, sendMessage } from './prerequisites-probes';

jest.setTimeout(120_000);

/** A loopback port nothing listens on: a start that got as far as Temporal would fail on it instead. */
const NOWHERE = localTemporal('127.0.0.1:1');

describe('api and worker bound to their deployment', () => {
  let server: DevServer;
  let tdb: TestDatabase;
  let api: ApiServer;
  let worker: RunningWorker;
  let workerLog: LogCapture;
  const queue = `deployment-a-${process.pid}`;
  const envOf = (taskQueue: string, namespace = 'default') =>
    loadEnv({
      DATABASE_URL: tdb.url,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
    });
  beforeAll(async () => {
    server = await startDevServer({ port: 0, searchAttributes: { ...TURN_SEARCH_ATTRIBUTES } });
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['faq']);
    const env = envOf(queue);
    const temporal = localTemporal(server.address);
    api = await startApiServer({
      env,
      databaseUrl: tdb.url,
      temporal,
      port: 0,
      prerequisiteCacheMs: 0,
      bindDeployment: true,
    });
    workerLog = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'test', destination: workerLog.stream });
    worker = await runTurnWorker({
      env,
      databaseUrl: tdb.url,
      temporal,
      toolEnv: {},
      logger,
      probe: { host: '127.0.0.1', port: 0 },
      prerequisiteCacheMs: 0,
      bindDeployment: true,
    });
  });
  afterAll(async () => {
    await api?.close({ drainMs: 0 });
    await worker?.shutdown();
    await tdb?.drop();
    await server?.stop();
  });

  it('bind the database on their first start, report it ready, and the worker logs its database with its queue', async () => {
    expect(await readDeploymentBinding(tdb.pool)).toMatchObject({ namespace: 'default', taskQueue: queue });
    expect(await readyz(api.url)).toMatchObject({ status: 200, checks: { deployment: 'ok' } });
    expect(await readyz(worker.probeUrl!)).toMatchObject({ status: 200, checks: { deployment: 'ok' } });
    const started = workerLog.lines().find((l) => String(l['msg']).startsWith('worker polls '));
    expect(started).toMatchObject({ taskQueue: queue, namespace: 'default', database: `127.0.0.1:5432/${tdb.name}` });
    expect(JSON.stringify(started)).not.toContain('postgres@');
  });

  it('of another deployment fail their start, before they connect to Temporal, naming both', async () => {
    const other = envOf('deployment-b', 'staging');
    const apiStart = startApiServer({
      env: other,
      databaseUrl: tdb.url,
      temporal: NOWHERE,
      port: 0,
      bindDeployment: true,
    });
    await expect(apiStart).rejects.toThrow(DeploymentMismatchError);
    await expect(apiStart).rejects.toThrow(/task queue "deployment-b"/);
    const workerStart = runTurnWorker({
      env: other,
      databaseUrl: tdb.url,
      temporal: NOWHERE,
      toolEnv: {},
      bindDeployment: true,
    });
    await expect(workerStart).rejects.toThrow(DeploymentMismatchError);
  });

  it('without bindDeployment (the test harnesses), start on any queue and leave the binding alone', async () => {
    const other = envOf('harness-queue');
    const unbound = await startApiServer({
      env: other,
      databaseUrl: tdb.url,
      temporal: localTemporal(server.address),
      port: 0,
    });
    try {
      const ready = await readyz(unbound.url);
      expect(ready.checks['deployment']).toBeUndefined();
    } finally {
      await unbound.close({ drainMs: 0 });
    }
    expect(await readDeploymentBinding(tdb.pool)).toMatchObject({ taskQueue: queue });
  });

  it('moved while they run: the API unready and refusing turns (503 DEPLOYMENT_MISMATCH), the worker stopped, the log naming both', async () => {
    await rebindDeployment(tdb.pool, { namespace: 'default', taskQueue: 'deployment-b' });
    try {
      expect(await readyz(api.url)).toMatchObject({ status: 503, checks: { deployment: DEPLOYMENT_MISMATCH } });
      expect(await sendMessage(api)).toEqual({ status: 503, code: 'DEPLOYMENT_MISMATCH' });
      expect(PREREQUISITE_MESSAGES.DEPLOYMENT_MISMATCH).not.toContain('deployment-b');
      // The worker polls no more: it stops as on a SIGTERM, its run ending with the mismatch.
      const ended = await Promise.race([
        worker.done.then(
          () => 'stopped without the mismatch',
          (err: unknown) => err
        ),
        new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000)),
      ]);
      expect(ended).toBeInstanceOf(DeploymentMismatchError);
      const logged = workerLog.lines().find((l) => String(l['msg']).startsWith('worker stops taking turns'));
      expect(logged?.['msg']).toContain(`task queue "deployment-b"`);
      expect(logged?.['msg']).toContain(`task queue "${queue}"`);
    } finally {
      await rebindDeployment(tdb.pool, { namespace: 'default', taskQueue: queue });
    }
    expect(await readyz(api.url)).toMatchObject({ checks: { deployment: 'ok' } });
  });

  it("moved while they run: the API's reads are refused too (503 DEPLOYMENT_MISMATCH); liveness and metrics answer", async () => {
    const id = crypto.randomUUID();
    const reads = [
      `/api/v1/conversation/${id}`,
      `/api/v1/conversation/audit/${id}`,
      '/api/v1/console/conversations',
      '/api/v1/admin/turns/awaiting-approval',
      '/api/v1/admin/turns/held',
    ];
    expect((await answer(api, reads[0]!)).status).toBe(404);
    await rebindDeployment(tdb.pool, { namespace: 'default', taskQueue: 'deployment-b' });
    try {
      for (const route of reads) {
        const got = await answer(api, route);
        expect({ route, status: got.status, retryAfter: got.retryAfter, body: got.body }).toEqual({
          route,
          status: 503,
          retryAfter: '5',
          body: { error: { code: 'DEPLOYMENT_MISMATCH', message: PREREQUISITE_MESSAGES.DEPLOYMENT_MISMATCH } },
        });
      }
      expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${api.url}/metrics`)).status).toBe(200);
      expect(await readyz(api.url)).toMatchObject({ status: 503, checks: { deployment: DEPLOYMENT_MISMATCH } });
    } finally {
      await rebindDeployment(tdb.pool, { namespace: 'default', taskQueue: queue });
    }
    expect((await answer(api, reads[0]!)).status).toBe(404);
  });
});
