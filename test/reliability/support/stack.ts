import { TURN_REPLY_TIMEOUT_DEFAULT_MS } from '../../../config/env';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { decodePayloadsIn } from '../../../api/history/decoded-history';
import { TemporalTurnGateway } from '../../../api/turns/gateway';
import { CLAIM_CHECK_DEFAULT_THRESHOLD_BYTES } from '../../../config/env';
import { engineDataConverter } from '../../../db/data-converter';
import { seedPacks } from '../../../db/seed';
import { startDemoLlm } from '../../../demo/recorded-llm';
import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../../../demo/tool-server';
import { startDevServer, type DevServer } from '../../../devserver';
import type { TemporalCliServer } from '../../../cli/temporal/server';
import type { ScriptedLlm } from '../../../scripted-llm';
import { TURN_SEARCH_ATTRIBUTES } from '../../../workflows/search-attributes';
import {
  startDevServerProcess,
  startWorkerProcess,
  type ConvengineProcess,
  type WorkerProcessEnv,
} from '../../support/child-processes';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { getTestTemporal, startOwnRealServer, usingRealServer } from '../../support/temporal';
import { startToolProxy, type ToolProxy } from '../../support/tool-proxy';

export interface StackOptions {
  /**
   * `embedded`: an in-memory dev server in this process. `process`: `convengine devserver
   * --persist <file>` as a child process, which restartDevServer() kills and starts again.
   */
  temporal: 'embedded' | 'process';
  workers: number;
  /** Extra worker environment (LLM_TIMEOUT_MS, ...). */
  workerEnv?: Record<string, string>;
  /** SQL run on the seeded database before any worker starts (tool timeouts and the like). */
  configSql?: string[];
  /** Give each worker its own pass-through to the tool server, to tell which worker called a tool. */
  toolProxyPerWorker?: boolean;
}

interface TemporalUnderTest {
  address: string;
  embedded?: DevServer;
  child?: ConvengineProcess;
  /** In `npm run test:temporal`, `process` is a real server of its own with a SQLite file. */
  real?: TemporalCliServer;
  persistPath?: string;
  port: number;
}

async function startTemporal(kind: StackOptions['temporal'], dir: string): Promise<TemporalUnderTest> {
  if (usingRealServer) {
    if (kind === 'embedded') {
      const shared = await getTestTemporal();
      return { address: shared.address, port: Number(shared.address.split(':').at(-1)) };
    }
    const persistPath = join(dir, 'temporal.sqlite');
    const real = await startOwnRealServer({ dbFile: persistPath });
    return { address: real.address, real, persistPath, port: real.port };
  }
  if (kind === 'embedded') {
    const server = await startDevServer({ port: 0, searchAttributes: { ...TURN_SEARCH_ATTRIBUTES } });
    return { address: server.address, embedded: server, port: server.port };
  }
  const persistPath = join(dir, 'devserver.jsonl');
  const started = await startDevServerProcess({ port: 0, persistPath, searchAttributes: TURN_SEARCH_ATTRIBUTES });
  return { address: `127.0.0.1:${started.port}`, child: started.process, persistPath, port: started.port };
}

/**
 * What every fault scenario runs on: a fresh database with every seed pack, the recorded demo LLM
 * and the demo tool server in this process (so faults can be injected and write effects counted),
 * a Temporal dev server, N `convengine worker` processes, and the real gateway with its client.
 */
export class ReliabilityStack {
  readonly workers: ConvengineProcess[] = [];
  private readonly proxies = new Map<ConvengineProcess, ToolProxy>();
  readonly taskQueue = `reliability-${process.pid}-${Date.now()}`;
  private workerSeq = 0;

  private constructor(
    readonly tdb: TestDatabase,
    readonly llm: ScriptedLlm,
    readonly tools: DemoToolServer,
    private readonly temporal: TemporalUnderTest,
    readonly client: Client,
    private readonly options: StackOptions,
    private readonly dir: string
  ) {}

  static async start(options: StackOptions): Promise<ReliabilityStack> {
    const dir = mkdtempSync(join(tmpdir(), 'ce-reliability-'));
    const tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
    for (const sql of options.configSql ?? []) await tdb.pool.query(sql);
    const llm = await startDemoLlm();
    const tools = await startDemoToolServer();
    const temporal = await startTemporal(options.temporal, dir);
    const connection = await Connection.connect({ address: temporal.address });
    const dataConverter = engineDataConverter(
      { CLAIM_CHECK_THRESHOLD_BYTES: CLAIM_CHECK_DEFAULT_THRESHOLD_BYTES, PAYLOAD_ENCRYPTION_KEYS: undefined },
      tdb.db
    );
    const client = new Client({ connection, namespace: 'default', dataConverter });
    const stack = new ReliabilityStack(tdb, llm, tools, temporal, client, options, dir);
    await Promise.all(Array.from({ length: options.workers }, () => stack.startWorker()));
    return stack;
  }

  get address(): string {
    return this.temporal.address;
  }

  gateway(): TemporalTurnGateway {
    return new TemporalTurnGateway({
      client: this.client,
      db: this.tdb.db,
      taskQueue: this.taskQueue,
      // The caller here is the test, which waits on turns through worker kills and server restarts on purpose.
      replyTimeoutMs: 10 * TURN_REPLY_TIMEOUT_DEFAULT_MS,
    });
  }

  private workerEnv(toolBaseUrl: string): WorkerProcessEnv {
    return {
      temporalAddress: this.temporal.address,
      taskQueue: this.taskQueue,
      databaseUrl: this.tdb.url,
      llmBaseUrl: this.llm.baseUrl,
      toolBaseUrl,
      toolApiKey: DEMO_API_KEY,
      extra: this.options.workerEnv ?? {},
    };
  }

  /** Status, pending activities (attempt, last failure) and the last events of a turn, plus the workers' state. */
  async diagnose(workflowId: string): Promise<string> {
    const handle = this.client.workflow.getHandle(workflowId);
    const description = await handle.describe();
    // As stored: payloads maybe encrypted or claim-checked.
    const codecs = this.client.options.loadedDataConverter.payloadCodecs;
    await decodePayloadsIn(description.raw.pendingActivities ?? [], codecs);
    const pending = (description.raw.pendingActivities ?? []).map((a) => ({
      type: a.activityType?.name,
      state: a.state,
      attempt: a.attempt,
      lastStarted: a.lastStartedTime?.seconds?.toString(),
      lastFailure: a.lastFailure?.message,
    }));
    const events = (await handle.fetchHistory()).events ?? [];
    await decodePayloadsIn(events, codecs);
    const tail = events.slice(-6).map((e) => `${String(e.eventType)}@${e.eventTime?.seconds?.toString()}`);
    const failed = events.filter((e) => e.activityTaskFailedEventAttributes).at(-1)?.activityTaskFailedEventAttributes;
    const lastActivityFailure = failed?.failure
      ? { message: failed.failure.message, cause: failed.failure.cause?.message, retryState: failed.retryState }
      : null;
    const workers = this.workers.map((w) => ({ pid: w.pid, running: w.running, tail: w.tail(1_500) }));
    const now = Math.floor(Date.now() / 1000);
    const status = description.status.name;
    return JSON.stringify({ now, status, pending, lastActivityFailure, lastEvents: tail, workers }, null, 1);
  }

  /** Starts one more worker process and adds it to `workers`. */
  async startWorker(): Promise<ConvengineProcess> {
    const proxy = this.options.toolProxyPerWorker ? await startToolProxy(this.tools.baseUrl) : null;
    const name = `worker-${++this.workerSeq}`;
    const worker = await startWorkerProcess(this.workerEnv(proxy?.baseUrl ?? this.tools.baseUrl), name).catch(
      async (err: unknown) => {
        await proxy?.stop();
        throw err;
      }
    );
    if (proxy) this.proxies.set(worker, proxy);
    this.workers.push(worker);
    return worker;
  }

  /** The live workers that sent a request on `route` (needs toolProxyPerWorker). */
  workersThatCalled(route: string): ConvengineProcess[] {
    return this.workers.filter((w) => this.proxies.get(w)?.routes.includes(route));
  }

  /** SIGKILLs a live worker (no drain: in-flight tasks are lost to it) and forgets it. */
  async killWorker(worker: ConvengineProcess): Promise<void> {
    await worker.kill('SIGKILL');
    this.workers.splice(this.workers.indexOf(worker), 1);
  }

  /** SIGKILLs the persistent dev server process (or real server) and starts it again on the same port and file. */
  async restartDevServer(downMs = 0): Promise<void> {
    const { child, real, persistPath, port } = this.temporal;
    if (real && persistPath) {
      await real.kill();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      this.temporal.real = await startOwnRealServer({ dbFile: persistPath, port });
      return;
    }
    if (!child || !persistPath) throw new Error('restartDevServer needs temporal: "process"');
    await child.kill('SIGKILL');
    if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
    const started = await startDevServerProcess({ port, persistPath, searchAttributes: TURN_SEARCH_ATTRIBUTES });
    this.temporal.child = started.process;
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
    this.workers.length = 0;
    await Promise.all([...this.proxies.values()].map((p) => p.stop()));
    await this.client.connection.close().catch(() => undefined);
    await this.temporal.child?.stop();
    await this.temporal.real?.stop();
    await this.temporal.embedded?.stop();
    await this.tools.stop();
    await this.llm.stop();
    await this.tdb.drop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
