/**
 * The API while one PostgreSQL backend does not answer (an SRE drill froze one with SIGSTOP; here a lock held by an
 * open transaction stalls the statements that read the locked table, portably). Before, a stalled read of the
 * deployment binding hung every /api/ route and /readyz until the backend answered again, with nothing logged; a
 * stalled route's own read held its request, its concurrency slot and a pooled connection forever.
 */
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { Client } from 'pg';
import { startApiServer, type ApiServer } from '../../api/server';
import { setupTemporalNamespace } from '../../cli/temporal/setup';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { startDevServer, type DevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { baseConfig } from '../support/base-config';
import { insertConfigRows } from '../support/config-db';
import { parseMetrics } from '../support/prometheus-text';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog, type LogCapture } from '../support/log-capture';

jest.setTimeout(90_000);

/** Far past every bound under test: a request still unanswered then would have waited for the lock's release. */
const HUNG_MS = 20_000;

interface Answer {
  status: number;
  retryAfter: string | null;
  code: string | undefined;
}

async function answer(url: string, init?: RequestInit): Promise<Answer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(HUNG_MS) });
  const body = (await res.json()) as { error?: { code?: string } };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.error?.code };
}

/** `work`'s result, run while another session holds `table` locked in an open transaction; released after. */
async function whileLocked<T>(url: string, table: string, work: () => Promise<T>): Promise<T> {
  const locker = new Client({ connectionString: url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return await work();
  } finally {
    await locker.query('ROLLBACK');
    await locker.end();
  }
}

describe('the API with one stalled database backend', () => {
  let server: DevServer;
  let db: TestDatabase;
  let api: ApiServer;
  let worker: RunningWorker;
  let log: LogCapture;
  beforeAll(async () => {
    server = await startDevServer({ port: 0 });
    const connection = await Connection.connect({ address: server.address });
    await setupTemporalNamespace(connection, { namespace: server.namespace }).finally(() => connection.close());
    db = await createTestDatabase();
    // A config, so a message is not refused CONFIG_EMPTY before it reads its conversation.
    await insertConfigRows(db.db, baseConfig());
    const env = loadEnv({
      DATABASE_URL: db.url,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      TEMPORAL_NAMESPACE: server.namespace,
      TEMPORAL_TASK_QUEUE: `stalled-backend-${process.pid}`,
      API_DB_QUERY_TIMEOUT_MS: '3000',
    });
    log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
    const common = { env, databaseUrl: db.url, temporal: localTemporal(server.address), prerequisiteCacheMs: 0 };
    worker = await runTurnWorker({ ...common, toolEnv: {} });
    api = await startApiServer({ ...common, logger, host: '127.0.0.1', port: 0, bindDeployment: true });
  });
  afterAll(async () => {
    await api?.close({ drainMs: 0 });
    await worker?.shutdown();
    await server?.stop();
    await db?.drop();
  });

  it('answers /api/ routes and /readyz while the deployment check stalls', async () => {
    const [read, ready] = await whileLocked(db.url, 'ce_deployment', () =>
      Promise.all([answer(`${api.url}/api/v1/conversation/${randomUUID()}`), answer(`${api.url}/readyz`)])
    );
    expect(read).toMatchObject({ status: 404, code: 'CONVERSATION_NOT_FOUND' });
    expect([200, 503]).toContain(ready.status);
  });

  it("answers a request whose own statement stalls 503 with retry-after, logs the pool, and frees the request's slot", async () => {
    const post = () =>
      answer(`${api.url}/api/v1/conversation/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello' }),
      });
    const [message, read] = await whileLocked(db.url, 'ce_conversation', () =>
      Promise.all([post(), answer(`${api.url}/api/v1/conversation/${randomUUID()}`)])
    );
    for (const refused of [message, read]) {
      expect(refused).toMatchObject({ status: 503, retryAfter: '5' });
      expect(['DATABASE_BUSY', 'DATABASE_UNREACHABLE']).toContain(refused.code);
    }
    const warned = log.lines().filter((line) => line.level === 'warn' && line.pool === 'convengine-api');
    expect(warned.length).toBeGreaterThan(0);
    const metrics = parseMetrics(await (await fetch(`${api.url}/metrics`)).text());
    const inUse = [...metrics].filter(([key]) => key.startsWith('convengine_api_limit_in_use{'));
    expect(inUse.length).toBeGreaterThan(0);
    expect(inUse.map(([, value]) => value)).toEqual(inUse.map(() => 0));
  });
});
