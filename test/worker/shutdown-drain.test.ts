/**
 * A stopping turn worker (SIGTERM to `convengine worker`, `convengine start`'s stop: both `requestStop`) lets the
 * activity it runs finish: the tool call in flight is answered and recorded once, not cut as WORKER_SHUTDOWN, counted
 * as a tool error and sent again by the next worker.
 */
import { startApiServer, type ApiServer } from '../../api/server';
import { loadEnv, type Env } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { seedPacks } from '../../db/seed';
import { DEMO_MESSAGES } from '../../demo/conversations';
import { startDemoLlm } from '../../demo/recorded-llm';
import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../../demo/tool-server';
import { createLogger, silentLogger } from '../../observability/logger';
import { installTemporalRuntime } from '../../observability/temporal-runtime';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { createTestDatabase } from '../support/database';
import { captureLog } from '../support/log-capture';
import { getSetUpTestTemporal } from '../support/temporal';

const TOOL_MS = 2_500;
const ORDER_STATUS = '/orders/status';

describe('a turn worker asked to stop while a tool call is in flight', () => {
  const stops: (() => Promise<unknown>)[] = [];
  let env: Env;
  let tools: DemoToolServer;
  let api: ApiServer;
  let start: (log?: ReturnType<typeof captureLog>) => Promise<RunningWorker>;

  beforeAll(async () => {
    installTemporalRuntime({ logger: silentLogger() });
    const tdb = await createTestDatabase();
    stops.push(() => tdb.drop());
    await seedPacks(tdb.db, ['order-diagnostics']);
    const llm = await startDemoLlm();
    stops.push(() => llm.stop());
    tools = await startDemoToolServer();
    stops.push(() => tools.stop());
    const temporal = await getSetUpTestTemporal();
    stops.push(() => temporal.stop());
    // WORKER_SHUTDOWN_GRACE_MS unset: the default policy, as `convengine worker` and `convengine start` run it.
    env = loadEnv({
      DATABASE_URL: tdb.url,
      ANTHROPIC_BASE_URL: llm.baseUrl,
      ANTHROPIC_MODEL: 'recorded-demo',
      TEMPORAL_NAMESPACE: temporal.namespace,
      TEMPORAL_TASK_QUEUE: `drain-${process.pid}-${Date.now()}`,
    });
    start = (log) =>
      runTurnWorker({
        env,
        databaseUrl: tdb.url,
        temporal: localTemporal(temporal.address),
        toolEnv: { CONVENGINE_TOOL_DEMO_URL: tools.baseUrl, CONVENGINE_TOOL_DEMO_API_KEY: DEMO_API_KEY },
        logger: log
          ? createLogger({ level: 'info', format: 'json', name: 'worker', destination: log.stream })
          : undefined,
      });
    api = await startApiServer({
      env,
      databaseUrl: tdb.url,
      temporal: localTemporal(temporal.address),
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
    });
    stops.push(() => api.close({ drainMs: 0 }));
  }, 120_000);
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }, 60_000);

  it('finishes that call before it stops; the next worker ends the turn without calling the tool again', async () => {
    tools.faults.set(ORDER_STATUS, { delayMs: TOOL_MS });
    const firstLog = captureLog();
    const first = await start(firstLog);
    stops.push(() => first.shutdown());
    const reply = fetch(`${api.url}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: DEMO_MESSAGES.orderDirect }),
    });
    await until(() => tools.counters.requests(ORDER_STATUS) === 1);

    const asked = Date.now();
    expect(first.requestStop()).toBe(true);
    await first.done;
    // It waited for the tool's answer (the SDK's default grace, 0, cancels at once).
    expect(Date.now() - asked).toBeGreaterThan(TOOL_MS / 2);
    const toolSteps = firstLog.lines().filter((line) => line['tool'] === 'mock.order.status');
    expect(toolSteps.map((line) => line['msg'])).toEqual(['step completed']);

    const second = await start();
    stops.push(() => second.shutdown());
    const answered = await reply;
    expect(answered.status).toBe(200);
    const body = (await answered.json()) as { turn?: { outcome?: string } };
    expect(body.turn?.outcome).toBe('ANSWERED');
    expect(tools.counters.requests(ORDER_STATUS)).toBe(1);
  }, 120_000);
});

async function until(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the tool call');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
