/**
 * Dev server benchmark (not a test): `npm run bench:devserver`.
 *
 * - Time per activity in a 20-activity workflow: the gap between consecutive activity executions
 *   of one workflow, i.e. one full loop (complete activity → workflow task → schedule next → run).
 * - Workflows per second with 8 concurrent clients, each workflow running one activity.
 * - In memory and with a persistence file; with the server embedded in the worker's process (as
 *   tests use it) and in its own process (`convengine devserver`), where the server's CPU time per
 *   activity (user + system, from /proc) can be measured apart from the SDK's.
 * - Sticky execution evidence: events written vs. events shipped in workflow tasks for a long
 *   workflow, with a sticky cache and (for contrast) without one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { startDevServer, type DevServer } from '../devserver';

const REPO_ROOT = path.join(__dirname, '..');
const WORKFLOWS_PATH = path.join(REPO_ROOT, 'test', 'devserver', 'workflows');
const ACTIVITIES_PER_WORKFLOW = 20;
const LATENCY_WORKFLOWS = 15;
const THROUGHPUT_WORKFLOWS = 240;
const CONCURRENCY = 8;
const LONG_WORKFLOW_ACTIVITIES = 200;

/** performance.now() of every activity execution, per workflow ID. */
const executions = new Map<string, number[]>();

const activities = {
  async echo(value: number): Promise<number> {
    const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
    const list = executions.get(workflowId) ?? [];
    list.push(performance.now());
    executions.set(workflowId, list);
    return value;
  },
};

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

/** Where the server runs and how to read its CPU time (ms), if it can be told apart. */
interface ServerUnderTest {
  address: string;
  cpuMs(): number | undefined;
  stats?: DevServer['stats'];
  stop(): Promise<void>;
}

async function embeddedServer(persistPath?: string): Promise<ServerUnderTest> {
  const server = await startDevServer({ port: 0, persistPath });
  return { address: server.address, cpuMs: () => undefined, stats: server.stats, stop: server.stop };
}

/** CPU time of a process in ms (Linux /proc; undefined elsewhere). */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticksPerSecond = 100;
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

async function separateServer(persistPath?: string): Promise<ServerUnderTest> {
  const args = [path.join(REPO_ROOT, 'bin', 'convengine.js'), 'devserver', '--port', '0'];
  if (persistPath) args.push('--persist', persistPath);
  const child: ChildProcess = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const address = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /ready at (\S+)/.exec(chunk.toString());
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`devserver exited with ${code}`)));
  });
  return {
    address,
    cpuMs: () => (child.pid === undefined ? undefined : processCpuMs(child.pid)),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

interface Measured {
  p50: number;
  p95: number;
  samples: number;
  workflowsPerSecond: number;
  serverCpuPerActivityMs?: number;
}

async function withWorker<T>(
  bundle: WorkflowBundleWithSourceMap,
  address: string,
  fn: (client: Client) => Promise<T>,
  maxCachedWorkflows?: number
): Promise<T> {
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  try {
    const worker = await Worker.create({
      connection,
      taskQueue: 'bench',
      workflowBundle: bundle,
      activities,
      ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }),
    });
    return await worker.runUntil(fn(new Client({ connection: clientConnection })));
  } finally {
    await clientConnection.close();
    await connection.close();
  }
}

function runSequence(client: Client, count: number, workflowId = randomUUID()): Promise<number> {
  return client.workflow.execute('activitySequence', { taskQueue: 'bench', workflowId, args: [count] });
}

async function measure(client: Client, server: ServerUnderTest): Promise<Measured> {
  for (let i = 0; i < 5; i++) await runSequence(client, ACTIVITIES_PER_WORKFLOW);
  const gaps: number[] = [];
  const cpuBefore = server.cpuMs();
  for (let i = 0; i < LATENCY_WORKFLOWS; i++) {
    const workflowId = randomUUID();
    await runSequence(client, ACTIVITIES_PER_WORKFLOW, workflowId);
    const times = executions.get(workflowId) ?? [];
    for (let k = 1; k < times.length; k++) gaps.push((times[k] as number) - (times[k - 1] as number));
  }
  const cpuAfter = server.cpuMs();
  gaps.sort((a, b) => a - b);
  let remaining = THROUGHPUT_WORKFLOWS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (remaining-- > 0) await runSequence(client, 1);
    })
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  const activityCount = LATENCY_WORKFLOWS * ACTIVITIES_PER_WORKFLOW;
  return {
    p50: percentile(gaps, 50),
    p95: percentile(gaps, 95),
    samples: gaps.length,
    workflowsPerSecond: THROUGHPUT_WORKFLOWS / elapsedSeconds,
    serverCpuPerActivityMs:
      cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / activityCount,
  };
}

async function runMode(
  bundle: WorkflowBundleWithSourceMap,
  label: string,
  start: (persistPath?: string) => Promise<ServerUnderTest>,
  persistent: boolean
): Promise<void> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'convengine-devserver-bench-'));
  const server = await start(persistent ? path.join(directory, 'state.jsonl') : undefined);
  try {
    const result = await withWorker(bundle, server.address, (client) => measure(client, server));
    const cpu =
      result.serverCpuPerActivityMs === undefined
        ? ''
        : `; server process CPU ${result.serverCpuPerActivityMs.toFixed(2)} ms per activity`;
    console.log(
      `${label.padEnd(32)} per activity p50 ${result.p50.toFixed(2)} ms, p95 ${result.p95.toFixed(2)} ms ` +
        `(${result.samples} samples); ${result.workflowsPerSecond.toFixed(1)} workflows/s at concurrency ${CONCURRENCY}${cpu}`
    );
  } finally {
    await server.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

async function stickyEvidence(bundle: WorkflowBundleWithSourceMap): Promise<void> {
  for (const [label, maxCachedWorkflows] of [
    ['sticky cache (default worker)', undefined],
    ['no cache (maxCachedWorkflows 0)', 0],
  ] as const) {
    const server = await embeddedServer();
    try {
      await withWorker(
        bundle,
        server.address,
        (client) => runSequence(client, LONG_WORKFLOW_ACTIVITIES),
        maxCachedWorkflows
      );
      const stats = (server.stats as DevServer['stats'])();
      console.log(
        `${LONG_WORKFLOW_ACTIVITIES}-activity workflow, ${label}: ${stats.eventsWritten} events written, ` +
          `${stats.eventsSentInWorkflowTasks} events sent in ${stats.workflowTasksDispatched} workflow tasks ` +
          `(${(stats.eventsSentInWorkflowTasks / stats.eventsWritten).toFixed(2)} per written event)`
      );
    } finally {
      await server.stop();
    }
  }
}

async function main(): Promise<void> {
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('ERROR') });
  const load = os.loadavg()[0]?.toFixed(2);
  console.log(`dev server benchmark: ${os.cpus().length} CPUs, Node ${process.version}, load average ${load}`);
  await runMode(bundle, 'in-memory, embedded', embeddedServer, false);
  await runMode(bundle, 'persistent, embedded', embeddedServer, true);
  await runMode(bundle, 'in-memory, separate process', separateServer, false);
  await runMode(bundle, 'persistent, separate process', separateServer, true);
  await stickyEvidence(bundle);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  }
);
