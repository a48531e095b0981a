/**
 * A worker whose served config has HTTP tools reading CONVENGINE_TOOL_* variables its environment leaves unset says
 * so at its start, one warning a variable naming the tools: the seed packs' loan and order tools failed every call
 * (CONFIG_INVALID) on a worker without CONVENGINE_TOOL_DEMO_URL or its key, and nothing said why before a turn ran.
 * `convengine start` runs the same worker start (its embedded demo tool server sets both).
 */
import { randomBytes } from 'node:crypto';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { unsetToolVariables, unsetToolVariableWarning } from '../../core/mcp/tool-env';
import { packConfigRows, seedPacks, SEED_PACKS } from '../../db/seed';
import { startDevServer, type DevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import { runTurnWorker } from '../../worker/main';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog } from '../support/log-capture';

jest.setTimeout(120_000);

const URL_VAR = 'CONVENGINE_TOOL_DEMO_URL';
const KEY_VAR = 'CONVENGINE_TOOL_DEMO_API_KEY';

describe('unsetToolVariables', () => {
  const rows = packConfigRows(SEED_PACKS);

  it("names the seed packs' base URL and key, with the enabled tools that read each", () => {
    const unset = unsetToolVariables(rows, {});
    expect(unset.map((u) => u.variable)).toEqual([KEY_VAR, URL_VAR]);
    expect(unset.find((u) => u.variable === KEY_VAR)?.tools).toHaveLength(1);
    expect(unset.find((u) => u.variable === URL_VAR)?.tools.length).toBeGreaterThan(3);
  });

  it('names only what is unset or blank, and nothing a disabled tool reads', () => {
    expect(unsetToolVariables(rows, { [URL_VAR]: 'http://tools:8090', [KEY_VAR]: 'k' })).toEqual([]);
    expect(unsetToolVariables(rows, { [URL_VAR]: 'http://tools:8090', [KEY_VAR]: '' }).map((u) => u.variable)).toEqual([
      KEY_VAR,
    ]);
    const disabled = { ...rows, mcpTools: rows.mcpTools.map((t) => ({ ...t, enabled: false })) };
    expect(unsetToolVariables(disabled, {})).toEqual([]);
  });
});

describe('a worker on a config whose HTTP tools read unset variables', () => {
  let server: DevServer;
  let tdb: TestDatabase;
  beforeAll(async () => {
    server = await startDevServer({ port: 0, searchAttributes: { ...TURN_SEARCH_ATTRIBUTES } });
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
  });
  afterAll(async () => {
    await tdb?.drop();
    await server?.stop();
  });

  async function startLog(toolEnv: Record<string, string>) {
    const env = loadEnv({
      DATABASE_URL: tdb.url,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      TEMPORAL_NAMESPACE: server.namespace,
      TEMPORAL_TASK_QUEUE: `unset-tool-vars-${randomBytes(3).toString('hex')}`,
    });
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'test', destination: log.stream });
    const worker = await runTurnWorker({
      env,
      databaseUrl: tdb.url,
      temporal: localTemporal(server.address),
      toolEnv,
      logger,
    });
    await worker.shutdown();
    return log.lines().filter((l) => l['level'] === 'warn' && typeof l['variable'] === 'string');
  }

  it('warns at its start, once a variable, naming the tools', async () => {
    const warnings = await startLog({ [URL_VAR]: 'http://tools:8090' });
    const expected = unsetToolVariables(packConfigRows(SEED_PACKS), { [URL_VAR]: 'http://tools:8090' });
    expect(warnings.map((l) => [l['variable'], l['msg']])).toEqual(
      expected.map((u) => [u.variable, unsetToolVariableWarning(u)])
    );
    expect(warnings.map((l) => l['variable'])).toEqual([KEY_VAR]);
  });

  it('says nothing when both are set', async () => {
    expect(await startLog({ [URL_VAR]: 'http://tools:8090', [KEY_VAR]: 'k' })).toEqual([]);
  });
});
