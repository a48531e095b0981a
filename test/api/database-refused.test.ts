/**
 * `convengine api` on a DATABASE_URL the server refuses a session for (a database that does not exist, 3D000; a role
 * it does not know, class 28): every route answers as a message does, 503 DATABASE_UNREACHABLE with retry-after, as
 * /readyz names the refusal (`database missing`, `login refused`); a read never answers 500, and no answer names the database, the role or the SQLSTATE.
 */
import { randomUUID } from 'node:crypto';
import { startApiServer, type ApiServer } from '../../api/server';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { startDevServer, type DevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import { ADMIN_DATABASE_URL } from '../support/database';
import { captureLog, type LogCapture } from '../support/log-capture';

jest.setTimeout(60_000);

interface Answer {
  route: string;
  status: number;
  retryAfter: string | null;
  body: unknown;
}

async function answer(api: ApiServer, method: 'GET' | 'POST', route: string): Promise<Answer> {
  const res = await fetch(`${api.url}${route}`, {
    method,
    ...(method === 'POST'
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello' }) }
      : {}),
  });
  return { route, status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

const refusedUrls = {
  'a database that does not exist (3D000)': ['3D000', { pathname: '/ce_no_such_db' }, 'database missing'],
  'a role the server does not know (28000)': ['28000', { username: 'ce_no_such_role' }, 'login refused'],
} as const;

describe.each(Object.entries(refusedUrls))('the API on %s', (_name, [sqlState, change, readiness]) => {
  let server: DevServer;
  let api: ApiServer;
  let log: LogCapture;
  beforeAll(async () => {
    server = await startDevServer({ port: 0 });
    const databaseUrl = Object.assign(new URL(ADMIN_DATABASE_URL), change).toString();
    const env = loadEnv({ DATABASE_URL: databaseUrl, TEMPORAL_NAMESPACE: server.namespace });
    log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
    api = await startApiServer({
      env,
      databaseUrl,
      temporal: localTemporal(server.address),
      host: '127.0.0.1',
      port: 0,
      logger,
    });
  });
  afterAll(async () => {
    await api?.close({ drainMs: 0 });
    await server?.stop();
  });

  it('answers every read as it answers a message: 503 DATABASE_UNREACHABLE with retry-after', async () => {
    const id = randomUUID();
    const answers = [
      await answer(api, 'POST', '/api/v1/conversation/message'),
      await answer(api, 'GET', `/api/v1/conversation/${id}`),
      await answer(api, 'GET', `/api/v1/conversation/audit/${id}`),
      await answer(api, 'GET', `/api/v1/conversation/audit/${id}/trace`),
      await answer(api, 'GET', '/api/v1/console/conversations'),
      await answer(api, 'GET', `/api/v1/console/conversations/${id}/turns`),
    ];
    const unreachable = { code: 'DATABASE_UNREACHABLE', message: 'The database is unreachable; retry later.' };
    expect(answers).toEqual(
      answers.map(({ route }) => ({ route, status: 503, retryAfter: '5', body: { error: unreachable } }))
    );
    const ready = await fetch(`${api.url}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toMatchObject({
      status: 503,
      body: { checks: { database: `${readiness}: check DATABASE_URL` } },
    });
    const logged = log.lines().filter((l) => l['msg'] === 'database unreachable');
    expect(logged.map((l) => (l['err'] as { sqlState?: string }).sqlState)).toContain(sqlState);
  });
});
