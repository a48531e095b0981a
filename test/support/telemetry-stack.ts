import { createServer, type AddressInfo } from 'node:net';
import { startApiServer, type ApiServer } from '../../api/server';
import { loadEnv } from '../../config/env';
import { DEMO_MESSAGES } from '../../demo/conversations';
import { createLogger, silentLogger, type Logger } from '../../observability/logger';
import { installTemporalRuntime } from '../../observability/temporal-runtime';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { startDemoDependencies } from './demo-dependencies';
import { localTemporal, type TemporalConnectionSettings } from '../../config/temporal-connection';

/**
 * The production composition in one process: `runTurnWorker` (with its probe server on a free
 * port) and `startApiServer`, on a test database with every seed pack, the recorded LLM, the demo
 * tool server and the test Temporal server. What `convengine worker` + `convengine api` run.
 */
export class TelemetryStack {
  private constructor(
    readonly api: ApiServer,
    readonly worker: RunningWorker,
    private readonly stops: (() => Promise<unknown>)[]
  ) {}

  get workerProbeUrl(): string {
    if (!this.worker.probeUrl) throw new Error('the worker has no probe server');
    return this.worker.probeUrl;
  }

  /**
   * `workerLogger`: where the worker's step, LLM and tool lines go (default none). `connectVia`: how
   * the worker and the API reach the test server (default: plaintext to its address), e.g. through TLS.
   */
  static async start(
    options: {
      workerLogger?: Logger;
      connectVia?: (address: string) => Promise<TemporalConnectionSettings>;
    } = {}
  ): Promise<TelemetryStack> {
    // The SDK's own Prometheus exporter on a free port; the worker's /metrics appends it.
    const sdkMetricsAddress = `127.0.0.1:${await freePort()}`;
    installTemporalRuntime({
      logger: createLogger({ level: 'warn', format: 'json', name: 'test-worker' }),
      sdkMetricsAddress,
    });
    const stops: (() => Promise<unknown>)[] = [];
    const { tdb, llm, temporal, toolEnv } = await startDemoDependencies(['all'], stops);
    const settings = options.connectVia ? await options.connectVia(temporal.address) : localTemporal(temporal.address);
    const env = loadEnv({
      DATABASE_URL: tdb.url,
      ANTHROPIC_BASE_URL: llm.baseUrl,
      ANTHROPIC_MODEL: 'recorded-demo',
      TEMPORAL_NAMESPACE: temporal.namespace,
      TEMPORAL_TASK_QUEUE: `telemetry-${process.pid}-${Date.now()}`,
      TEMPORAL_SDK_METRICS_ADDRESS: sdkMetricsAddress,
    });
    const worker = await runTurnWorker({
      env,
      databaseUrl: tdb.url,
      temporal: settings,
      toolEnv,
      probe: { host: '127.0.0.1', port: 0 },
      logger: options.workerLogger,
    });
    stops.push(() => worker.shutdown());
    const api = await startApiServer({
      env,
      databaseUrl: tdb.url,
      temporal: settings,
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
    });
    stops.push(() => api.close());
    return new TelemetryStack(api, worker, stops);
  }

  /** A seed turn; by default order-diagnostics: the planner (LLM) calls two HTTP tools, then answers. */
  async seedTurn(
    message: string = DEMO_MESSAGES.orderDiagnosis
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${this.api.url}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async stop(): Promise<void> {
    for (const stop of this.stops.reverse()) await stop().catch(() => undefined);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
