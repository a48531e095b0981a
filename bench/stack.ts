import { TURN_REPLY_TIMEOUT_DEFAULT_MS } from '../config/env';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { ActivityDeps } from '../activities/deps';
import { TemporalTurnGateway } from '../api/turns/gateway';
import { loadEnv } from '../config/env';
import { seedPacks } from '../db/seed';
import { startDemoLlm } from '../demo/recorded-llm';
import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../demo/tool-server';
import type { ScriptedLlm } from '../scripted-llm';
import { freePort } from '../db/embedded/ports';
import { buildWorkerDeps, type WorkerDeps } from '../worker/deps';
import { TURN_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { installedTemporalCli } from '../cli/temporal/binary';
import { startTemporalCli } from '../cli/temporal/server';
import { startDevServerProcess, startWorkerProcess, type ConvengineProcess } from '../test/support/child-processes';
import { createTestDatabase, type TestDatabase } from '../test/support/database';

/**
 * What the turn benchmarks run on, shaped like a deployment: Temporal in its own process (our dev
 * server, `convengine devserver`, or the real server, `temporal server start-dev` with the shipped
 * dynamic config), one `convengine worker` process, and the gateway's client in
 * this process. The in-process baseline runs the same activities here, wired by the same
 * composition root (buildWorkerDeps) against the same database, LLM and tool servers.
 */
const BENCH_MODEL = 'recorded-demo';

/**
 * The worker and our dev server run the compiled CLI, as `npm start` and the image do: through tsx
 * (what the tests use) the process has source maps on, and every promise the workflow sandbox
 * creates pays for source-map bookkeeping the deployed process does not.
 */
const AS_DEPLOYED = { CONVENGINE_USE_SOURCES: '0' };

/** `devserver`: ours; `cli`: the real server at the shipped dynamic config; `cli-defaults`: at the server's own defaults. */
export type BenchTemporal = 'devserver' | 'cli' | 'cli-defaults';

export const BENCH_TEMPORAL_NAMES: Record<BenchTemporal, string> = {
  devserver: 'our dev server',
  cli: 'real server 1.29.1 (shipped config)',
  'cli-defaults': 'real server 1.29.1 (its defaults)',
};

export interface BenchStackOptions {
  /** Write V8 CPU profiles of the worker and dev server processes here (written when they exit). */
  profileDir?: string;
  temporal?: BenchTemporal;
}

/** The Temporal server process under measurement. */
export interface BenchServer {
  pid: number;
  stop(): Promise<void>;
}

async function startServer(kind: BenchTemporal, nodeArgs: string[]): Promise<{ address: string; server: BenchServer }> {
  if (kind === 'devserver') {
    const started = await startDevServerProcess({
      port: 0,
      searchAttributes: TURN_SEARCH_ATTRIBUTES,
      nodeArgs,
      env: AS_DEPLOYED,
    });
    const proc: ConvengineProcess = started.process;
    return { address: `127.0.0.1:${started.port}`, server: { pid: proc.pid, stop: () => proc.stop(20_000) } };
  }
  const binary = installedTemporalCli();
  if (!binary) throw new Error(`BENCH_TEMPORAL=${kind} needs the Temporal CLI: run npm run temporal:install`);
  // BENCH_TEMPORAL_DYNAMIC='key=value key=value': dynamic config on top of the server's (experiments).
  const dynamicConfig = process.env['BENCH_TEMPORAL_DYNAMIC']?.split(' ').filter(Boolean) ?? [];
  const real = await startTemporalCli({ binary, serverDefaults: kind === 'cli-defaults', dynamicConfig });
  return { address: real.address, server: { pid: real.pid, stop: () => real.stop(20_000) } };
}

export class BenchStack {
  private constructor(
    readonly address: string,
    readonly tdb: TestDatabase,
    readonly llm: ScriptedLlm,
    readonly tools: DemoToolServer,
    readonly server: BenchServer,
    readonly temporal: BenchTemporal,
    readonly worker: ConvengineProcess,
    /** host:port of the worker's sdk-core metrics (bench/worker-rpcs.ts reads its RPC counters). */
    readonly workerMetricsAddress: string,
    readonly client: Client,
    readonly gateway: TemporalTurnGateway,
    private readonly inProcess: WorkerDeps
  ) {}

  /** The engine's data converter (engineDataConverter) of the worker and the gateway's client. */
  get dataConverter(): DataConverter {
    return this.inProcess.dataConverter;
  }

  /** Activity dependencies for runTurnInProcess: the worker's own wiring, in this process. */
  get deps(): ActivityDeps {
    return this.inProcess.deps;
  }

  static async start(options: BenchStackOptions = {}): Promise<BenchStack> {
    const tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
    const llm = await startDemoLlm();
    const tools = await startDemoToolServer();
    // One directory per process: the worker's workflow threads write profiles of their own.
    const prof = (name: string) =>
      options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}/${name}`] : [];
    const temporal = options.temporal ?? 'devserver';
    const { address, server } = await startServer(temporal, prof('devserver'));
    const taskQueue = `bench-${process.pid}`;
    const toolEnv = { CONVENGINE_TOOL_DEMO_URL: tools.baseUrl, CONVENGINE_TOOL_DEMO_API_KEY: DEMO_API_KEY };
    const workerMetricsAddress = `127.0.0.1:${await freePort()}`;
    const worker = await startWorkerProcess(
      {
        temporalAddress: address,
        taskQueue,
        databaseUrl: tdb.url,
        llmBaseUrl: llm.baseUrl,
        toolBaseUrl: tools.baseUrl,
        toolApiKey: DEMO_API_KEY,
        // Any model name: the recorded LLM ignores it (and the SDK warns about retired default names).
        extra: { ANTHROPIC_MODEL: BENCH_MODEL, TEMPORAL_SDK_METRICS_ADDRESS: workerMetricsAddress, ...AS_DEPLOYED },
      },
      'bench-worker',
      [...prof('worker'), ...(process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])]
    );
    const env = loadEnv({ ANTHROPIC_BASE_URL: llm.baseUrl, ANTHROPIC_MODEL: BENCH_MODEL, DATABASE_URL: tdb.url });
    const inProcess = await buildWorkerDeps(env, { databaseUrl: tdb.url, toolEnv: { ...process.env, ...toolEnv } });
    // The worker's data converter: the gateway reads what the worker encrypted and offloaded.
    const dataConverter = inProcess.dataConverter;
    const client = new Client({
      connection: await Connection.connect({ address }),
      namespace: 'default',
      dataConverter,
    });
    const gateway = new TemporalTurnGateway({
      client,
      db: tdb.db,
      taskQueue,
      replyTimeoutMs: TURN_REPLY_TIMEOUT_DEFAULT_MS,
    });
    return new BenchStack(
      address,
      tdb,
      llm,
      tools,
      server,
      temporal,
      worker,
      workerMetricsAddress,
      client,
      gateway,
      inProcess
    );
  }

  /** Stops everything; SIGTERM lets the worker and dev server exit normally and write their profiles. */
  async stop(): Promise<void> {
    await this.worker.stop(20_000);
    await this.client.connection.close().catch(() => undefined);
    await this.server.stop();
    await this.inProcess.close();
    await this.tools.stop();
    await this.llm.stop();
    await this.tdb.drop();
  }
}
