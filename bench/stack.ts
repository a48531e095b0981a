import { Client, Connection } from '@temporalio/client';
import type { ActivityDeps } from '../activities/deps';
import { TemporalTurnGateway } from '../api/turns/gateway';
import { loadEnv } from '../config/env';
import { seedPacks } from '../db/seed';
import { startDemoLlm } from '../demo/recorded-llm';
import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../demo/tool-server';
import type { ScriptedLlm } from '../scripted-llm';
import { buildWorkerDeps, type WorkerDeps } from '../worker/deps';
import { TURN_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { startDevServerProcess, startWorkerProcess, type ConvengineProcess } from '../test/support/child-processes';
import { createTestDatabase, type TestDatabase } from '../test/support/database';

/**
 * What the turn benchmarks run on, shaped like a deployment: the Temporal dev server in its own
 * process (`convengine devserver`), one `convengine worker` process, and the gateway's client in
 * this process. The in-process baseline runs the same activities here, wired by the same
 * composition root (buildWorkerDeps) against the same database, LLM and tool servers.
 */
const BENCH_MODEL = 'recorded-demo';

export interface BenchStackOptions {
  /** Write V8 CPU profiles of the worker and dev server processes here (written when they exit). */
  profileDir?: string;
}

export class BenchStack {
  private constructor(
    readonly address: string,
    readonly tdb: TestDatabase,
    readonly llm: ScriptedLlm,
    readonly tools: DemoToolServer,
    readonly devserver: ConvengineProcess,
    readonly worker: ConvengineProcess,
    readonly client: Client,
    readonly gateway: TemporalTurnGateway,
    private readonly inProcess: WorkerDeps
  ) {}

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
    const server = await startDevServerProcess({
      port: 0,
      searchAttributes: TURN_SEARCH_ATTRIBUTES,
      nodeArgs: prof('devserver'),
    });
    const address = `127.0.0.1:${server.port}`;
    const taskQueue = `bench-${process.pid}`;
    const toolEnv = { CONVENGINE_TOOL_DEMO_URL: tools.baseUrl, CONVENGINE_TOOL_DEMO_API_KEY: DEMO_API_KEY };
    const worker = await startWorkerProcess(
      {
        temporalAddress: address,
        taskQueue,
        databaseUrl: tdb.url,
        llmBaseUrl: llm.baseUrl,
        toolBaseUrl: tools.baseUrl,
        toolApiKey: DEMO_API_KEY,
        // Any model name: the recorded LLM ignores it (and the SDK warns about retired default names).
        extra: { ANTHROPIC_MODEL: BENCH_MODEL },
      },
      'bench-worker',
      prof('worker')
    );
    const client = new Client({ connection: await Connection.connect({ address }), namespace: 'default' });
    const gateway = new TemporalTurnGateway({ client, db: tdb.db, taskQueue });
    const env = loadEnv({ ANTHROPIC_BASE_URL: llm.baseUrl, ANTHROPIC_MODEL: BENCH_MODEL, DATABASE_URL: tdb.url });
    const inProcess = await buildWorkerDeps(env, { databaseUrl: tdb.url, toolEnv: { ...process.env, ...toolEnv } });
    return new BenchStack(address, tdb, llm, tools, server.process, worker, client, gateway, inProcess);
  }

  /** Stops everything; SIGTERM lets the worker and dev server exit normally and write their profiles. */
  async stop(): Promise<void> {
    await this.worker.stop(20_000);
    await this.client.connection.close().catch(() => undefined);
    await this.devserver.stop(20_000);
    await this.inProcess.close();
    await this.tools.stop();
    await this.llm.stop();
    await this.tdb.drop();
  }
}
