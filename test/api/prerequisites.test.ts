/**
 * `convengine api` and `convengine worker` on a database without the migrations and a namespace without the
 * turn search attributes: they start, log each missing prerequisite with its fix, answer /readyz 503 with a
 * reason per dependency and refuse a message with 503 and a specific code, until an operator runs
 * `migrate` and `setup-temporal`, which makes them ready without a restart. A namespace that does not exist at all:
 * prerequisites-namespace.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { startApiServer, type ApiServer } from '../../api/server';
import { setupTemporalNamespace } from '../../cli/temporal/setup';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { CONFIG_EMPTY_WARNING } from '../../core/config/empty';
import { configVersionOf, readConfigRows } from '../../db/config/load';
import { createConfigStore } from '../../db/config/store';
import { migrate } from '../../db/migrate';
import { seedPacks } from '../../db/seed';
import { startDevServer, type DevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import { refusedConfigWarning, SEARCH_INDEXES_WARNING } from '../../observability/prerequisite-checks';
import {
  NOT_MIGRATED,
  PREREQUISITE_MESSAGES,
  SEARCH_ATTRIBUTES_MISSING,
} from '../../observability/prerequisite-problems';
import { ensureSearchIndexes } from '../../db/search-indexes';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog, type LogCapture } from '../support/log-capture';
import { answer, readyz, sendMessage } from './prerequisites-probes';

jest.setTimeout(120_000);

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

  it('answer every read as a message on the unmigrated database: 503 DATABASE_NOT_MIGRATED with retry-after', async () => {
    const id = randomUUID();
    const routes = [
      '/api/v1/conversation/message',
      `/api/v1/conversation/${id}`,
      `/api/v1/conversation/audit/${id}`,
      `/api/v1/conversation/audit/${id}/trace`,
      '/api/v1/console/conversations',
      `/api/v1/console/conversations/${id}/turns`,
    ];
    const answers = await Promise.all(routes.map((route) => answer(api, route)));
    const notMigrated = { code: 'DATABASE_NOT_MIGRATED', message: PREREQUISITE_MESSAGES.DATABASE_NOT_MIGRATED };
    expect(answers).toEqual(
      routes.map((route) => ({ route, status: 503, retryAfter: '5', body: { error: notMigrated } }))
    );
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
    // Migrated, nothing seeded: ready, but the empty config is named and every message refused until one is loaded.
    const empty = { config: CONFIG_EMPTY_WARNING };
    expect(await readyz(worker.probeUrl!)).toEqual({
      status: 200,
      checks: { database: 'ok', temporal: 'ok', tools: 'ok', worker: 'ok' },
      warnings: empty,
    });
    const ready = { database: 'ok', temporal: 'ok', worker: 'ok' };
    expect(await readyz(api.url)).toEqual({ status: 200, checks: ready, warnings: empty });
    const refused = { code: 'CONFIG_EMPTY', message: PREREQUISITE_MESSAGES.CONFIG_EMPTY };
    const message = '/api/v1/conversation/message';
    expect(await answer(api, message)).toEqual({
      route: message,
      status: 503,
      retryAfter: '5',
      body: { error: refused },
    });
    for (const log of [apiLog, workerLog]) {
      const said = log.lines().filter((l) => l['dependency'] === 'config');
      expect(said.map((l) => [l['level'], l['msg']])).toEqual([['error', CONFIG_EMPTY_WARNING]]);
    }

    await seedPacks(bare.db, ['faq']);
    await new Promise((resolve) => setTimeout(resolve, 250)); // the stores' staleness check
    expect(await readyz(api.url)).toEqual({ status: 200, checks: ready });
    expect(await readyz(worker.probeUrl!)).toEqual({ status: 200, checks: { ...ready, tools: 'ok' } });
  });

  it("stay ready without the console search's trigram indexes: the API warns, names them in the log, and stops", async () => {
    const ready = { database: 'ok', temporal: 'ok', worker: 'ok' };
    await bare.pool.query('DROP INDEX ce_audit_user_input_trgm_idx');
    expect(await readyz(api.url)).toEqual({ status: 200, checks: ready, warnings: { search: SEARCH_INDEXES_WARNING } });
    // The worker serves no search.
    expect(await readyz(worker.probeUrl!)).toEqual({ status: 200, checks: { ...ready, tools: 'ok' } });
    const client = await bare.pool.connect();
    try {
      expect(await ensureSearchIndexes(client)).toEqual([]);
    } finally {
      client.release();
    }
    expect(await readyz(api.url)).toEqual({ status: 200, checks: ready });
    const said = apiLog.lines().filter((l) => l['dependency'] === 'search');
    expect(said.map((l) => [l['level'], l['msg']])).toEqual([
      [
        'warn',
        'console search (q) has no trigram index (ce_audit_user_input_trgm_idx missing or invalid: dropped, or a ' +
          'build that failed or is under way): it works, but reads whole tables, slow on a large database. Run ' +
          '`convengine migrate` again',
      ],
      ['info', 'search: ok'],
    ]);
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
