import { Connection } from '@temporalio/client';
import { startApiServer, type ApiServer } from '../../api/server';
import { setupTemporalNamespace } from '../../cli/temporal/setup';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { startDevServer, type DevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { createTestDatabase, type TestDatabase } from './database';
import { captureLog, type LogCapture } from './log-capture';

/** An API and a turn worker in this process, on a dev server and a database of their own, their logs captured. */
export interface ApiAndWorker {
  server: DevServer;
  db: TestDatabase;
  api: ApiServer;
  worker: RunningWorker;
  log: LogCapture;
  /** The worker's log. */
  workerLog: LogCapture;
  stop(): Promise<void>;
}

export interface ApiAndWorkerOptions {
  /** The task queue's prefix, for telling the suites' queues apart. */
  name: string;
  env?: Record<string, string>;
  /** Run on the database before the worker and the API start (config rows, say). */
  prepare?: (db: TestDatabase) => Promise<void>;
  bindDeployment?: boolean;
  /** The worker's DATABASE_URL, from the database's (a TcpSwitch in front of it); the API's stays the database's. */
  workerDatabaseUrl?: (url: string) => string;
}

export async function startApiAndWorker(options: ApiAndWorkerOptions): Promise<ApiAndWorker> {
  const server = await startDevServer({ port: 0 });
  const connection = await Connection.connect({ address: server.address });
  await setupTemporalNamespace(connection, { namespace: server.namespace }).finally(() => connection.close());
  const db = await createTestDatabase();
  await options.prepare?.(db);
  const env = loadEnv({
    DATABASE_URL: db.url,
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
    TEMPORAL_NAMESPACE: server.namespace,
    TEMPORAL_TASK_QUEUE: `${options.name}-${process.pid}`,
    ...options.env,
  });
  const log = captureLog();
  const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
  const common = { env, databaseUrl: db.url, temporal: localTemporal(server.address), prerequisiteCacheMs: 0 };
  // A worker polls the task queue, so the API is ready but for what a test does to its database.
  const databaseUrl = options.workerDatabaseUrl?.(db.url) ?? db.url;
  const workerLog = captureLog();
  const workerLogger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: workerLog.stream });
  const worker = await runTurnWorker({ ...common, databaseUrl, logger: workerLogger, toolEnv: {} });
  const api = await startApiServer({
    ...common,
    logger,
    host: '127.0.0.1',
    port: 0,
    bindDeployment: options.bindDeployment,
  });
  const stop = async () => {
    await api.close({ drainMs: 0 });
    await worker.shutdown();
    await server.stop();
    await db.drop();
  };
  return { server, db, api, worker, log, workerLog, stop };
}
