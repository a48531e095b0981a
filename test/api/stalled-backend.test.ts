/**
 * The API while one PostgreSQL backend does not answer (an SRE drill froze one with SIGSTOP; here a lock held by an
 * open transaction stalls the statements that read the locked table, portably). Before, a stalled read of the
 * deployment binding hung every /api/ route and /readyz until the backend answered again, with nothing logged; a
 * stalled route's own read held its request, its concurrency slot and a pooled connection forever.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startApiAndWorker, type ApiAndWorker } from '../support/api-and-worker';
import { baseConfig } from '../support/base-config';
import { insertConfigRows } from '../support/config-db';
import { parseMetrics } from '../support/prometheus-text';

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
  let stack: ApiAndWorker;
  beforeAll(async () => {
    stack = await startApiAndWorker({
      name: 'stalled-backend',
      env: { API_DB_QUERY_TIMEOUT_MS: '3000' },
      // A config, so a message is not refused CONFIG_EMPTY before it reads its conversation.
      prepare: (db) => insertConfigRows(db.db, baseConfig()),
      bindDeployment: true,
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers /api/ routes and /readyz while the deployment check stalls', async () => {
    const [read, ready] = await whileLocked(stack.db.url, 'ce_deployment', () =>
      Promise.all([answer(`${stack.api.url}/api/v1/conversation/${randomUUID()}`), answer(`${stack.api.url}/readyz`)])
    );
    expect(read).toMatchObject({ status: 404, code: 'CONVERSATION_NOT_FOUND' });
    expect([200, 503]).toContain(ready.status);
  });

  it("answers a request whose own statement stalls 503 with retry-after, logs the pool, and frees the request's slot", async () => {
    const post = () =>
      answer(`${stack.api.url}/api/v1/conversation/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello' }),
      });
    const [message, read] = await whileLocked(stack.db.url, 'ce_conversation', () =>
      Promise.all([post(), answer(`${stack.api.url}/api/v1/conversation/${randomUUID()}`)])
    );
    for (const refused of [message, read]) {
      expect(refused).toMatchObject({ status: 503, retryAfter: '5' });
      expect(['DATABASE_BUSY', 'DATABASE_UNREACHABLE']).toContain(refused.code);
    }
    const warned = stack.log.lines().filter((line) => line.level === 'warn' && line.pool === 'convengine-api');
    expect(warned.length).toBeGreaterThan(0);
    const metrics = parseMetrics(await (await fetch(`${stack.api.url}/metrics`)).text());
    const inUse = [...metrics].filter(([key]) => key.startsWith('convengine_api_limit_in_use{'));
    expect(inUse.length).toBeGreaterThan(0);
    expect(inUse.map(([, value]) => value)).toEqual(inUse.map(() => 0));
  });
});
