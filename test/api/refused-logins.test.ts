/**
 * Logins the database refuses for what the configuration says, which no retry mends: the API and the worker on a
 * database that does not exist, and a worker whose SQL tools' login is refused while its own works. Each says so in
 * /readyz (the variable to check, nothing of its value) and in the log (the database or role, never a password),
 * instead of `unreachable` and "the database connection failed or the statement could not be sent".
 */
import { randomBytes } from 'node:crypto';
import { startApiServer, type ApiServer } from '../../api/server';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { startDevServer, type DevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog, type LogCapture } from '../support/log-capture';

jest.setTimeout(120_000);

async function readyz(baseUrl: string): Promise<{ status: number; checks: Record<string, string> }> {
  const res = await fetch(`${baseUrl}/readyz`);
  return { status: res.status, checks: ((await res.json()) as { checks: Record<string, string> }).checks };
}

const errorsOf = (log: LogCapture, dependency: string) =>
  log.lines().filter((l) => l['level'] === 'error' && l['dependency'] === dependency);

describe('api and worker on logins the database refuses', () => {
  let server: DevServer;
  let tdb: TestDatabase;
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const missingDatabase = `ce_missing_${suffix}`;
  const toolsRole = `ce_tools_h_${suffix}`;
  const started: { api?: ApiServer; workers: RunningWorker[] } = { workers: [] };
  beforeAll(async () => {
    server = await startDevServer({ port: 0, searchAttributes: { ...TURN_SEARCH_ATTRIBUTES } });
    tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await started.api?.close({ drainMs: 0 });
    for (const worker of started.workers) await worker.shutdown();
    await tdb?.pool.query(`DROP ROLE IF EXISTS ${toolsRole}`);
    await tdb?.drop();
    await server?.stop();
  });

  const run = async (databaseUrl: string, extra: Record<string, string> = {}) => {
    const env = loadEnv({
      DATABASE_URL: databaseUrl,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      TEMPORAL_NAMESPACE: server.namespace,
      TEMPORAL_TASK_QUEUE: `refused-logins-${suffix}`,
      ...extra,
    });
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'test', destination: log.stream });
    const common = { env, databaseUrl, temporal: localTemporal(server.address), logger, prerequisiteCacheMs: 0 };
    return { common, log };
  };

  it('a database that does not exist: named in the log, `database missing: check DATABASE_URL` in /readyz', async () => {
    const url = new URL(tdb.url);
    url.pathname = `/${missingDatabase}`;
    const worker = await run(url.toString());
    const api = await run(url.toString());
    started.api = await startApiServer({ ...api.common, host: '127.0.0.1', port: 0 });
    const running = await runTurnWorker({ ...worker.common, toolEnv: {}, probe: { host: '127.0.0.1', port: 0 } });
    started.workers.push(running);

    const missing = 'database missing: check DATABASE_URL';
    expect(await readyz(started.api.url)).toMatchObject({ status: 503, checks: { database: missing } });
    // The SQL tools' role is the database's own (db/tools-role.ts): with no database there is no such role, and
    // PostgreSQL refuses the login before it looks for the database.
    expect(await readyz(running.probeUrl!)).toMatchObject({
      status: 503,
      checks: {
        database: missing,
        tools: 'login refused: run convengine migrate as a superuser, or set TOOLS_DATABASE_URL',
      },
    });
    for (const log of [api.log, worker.log]) {
      expect(errorsOf(log, 'database')).toEqual([
        expect.objectContaining({
          sqlState: '3D000',
          msg: `database "${missingDatabase}" does not exist: check DATABASE_URL`,
        }),
      ]);
    }
  });

  it('a refused tools login: the worker is not ready, names the role in the log, and recovers once it works', async () => {
    const tools = new URL(tdb.url);
    tools.username = toolsRole;
    tools.password = 'not-logged';
    const worker = await run(tdb.url, { TOOLS_DATABASE_URL: tools.toString() });
    const running = await runTurnWorker({ ...worker.common, toolEnv: {}, probe: { host: '127.0.0.1', port: 0 } });
    started.workers.push(running);

    expect(await readyz(running.probeUrl!)).toEqual({
      status: 503,
      checks: { database: 'ok', temporal: 'ok', tools: 'login refused: check TOOLS_DATABASE_URL', worker: 'ok' },
    });
    expect(errorsOf(worker.log, 'tools')).toEqual([
      expect.objectContaining({
        sqlState: '28000',
        msg: expect.stringMatching(
          new RegExp(
            `^the SQL tools' login failed, .*: authentication failed for role "${toolsRole}" .*: check TOOLS_DATABASE_URL$`
          )
        ),
      }),
    ]);
    expect(worker.log.raw()).not.toContain('not-logged');

    // The trust-auth test server takes any password once the role exists.
    await tdb.pool.query(`CREATE ROLE ${toolsRole} LOGIN`);
    expect(await readyz(running.probeUrl!)).toEqual({
      status: 200,
      checks: { database: 'ok', temporal: 'ok', tools: 'ok', worker: 'ok' },
    });
    expect(worker.log.lines().filter((l) => l['dependency'] === 'tools' && l['msg'] === 'tools: ok')).toHaveLength(1);
  });
});
