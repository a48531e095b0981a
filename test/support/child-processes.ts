import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/**
 * `node bin/convengine.js <command>` as a child process that tests can SIGKILL and restart. Every
 * child is tracked and killed when the test process exits (afterAll should stop them first): a
 * leaked worker or dev server would steal tasks from, or hold ports of, later test runs.
 */
const BIN = join(__dirname, '..', '..', 'bin', 'convengine.js');
const OUTPUT_TAIL_CHARS = 16_000;

const live = new Set<ChildProcess>();
let exitHooked = false;

function killAllNow(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

/** Kills tracked children on exit and on SIGINT/SIGTERM (then lets the signal do its usual work). */
function hookProcessExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = (): void => {
      killAllNow();
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

export interface ConvengineProcessOptions {
  /** Extra environment on top of this process's (CONVENGINE_USE_SOURCES=1 unless this sets it). */
  env?: Record<string, string>;
  /** Resolves start() once stdout contains a match. */
  ready: RegExp;
  /** How long start-up may take (webpack bundling the workflows costs seconds on a busy machine). */
  readyTimeoutMs?: number;
  /** Prefix for the diagnostic tail shown when something goes wrong. */
  name: string;
  /** Node flags before the script (e.g. --cpu-prof, which NODE_OPTIONS does not allow). */
  nodeArgs?: string[];
  /** Its own process group (pid = pgid), as a shell starts a command: signalGroup() then acts as a terminal's Ctrl-C. */
  detached?: boolean;
}

export class ConvengineProcess {
  private output = '';
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    const collect = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        live.delete(child);
        resolve(code);
      })
    );
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines the process wrote (stdout and stderr), for failure messages. */
  tail(chars = 2_000): string {
    return this.output.slice(-chars);
  }

  static async start(args: string[], options: ConvengineProcessOptions): Promise<ConvengineProcess> {
    hookProcessExit();
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
      env: { ...process.env, CONVENGINE_USE_SOURCES: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached ?? false,
    });
    live.add(child);
    const proc = new ConvengineProcess(child);
    try {
      await proc.waitFor(options.ready, options.readyTimeoutMs ?? 60_000);
    } catch (err) {
      await proc.kill('SIGKILL');
      throw new Error(`${options.name}: ${(err as Error).message}\n${proc.tail()}`, { cause: err });
    }
    return proc;
  }

  private waitFor(pattern: RegExp, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.child.stdout?.off('data', check);
        if (err) reject(err);
        else resolve();
      };
      const check = () => {
        if (pattern.test(this.output)) finish(null);
      };
      const timer = setTimeout(() => finish(new Error(`not ready within ${timeoutMs} ms`)), timeoutMs);
      this.child.stdout?.on('data', check);
      void this.exited.then((code) => finish(new Error(`exited with ${code} before it was ready`)));
      check();
    });
  }

  /** First capture group of `pattern` in the output so far (e.g. a port from a ready line). */
  match(pattern: RegExp): string | undefined {
    return pattern.exec(this.output)?.[1];
  }

  /** Sends the signal and waits for the process to be gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.running) this.child.kill(signal);
    await this.exited;
  }

  /** Sends the signal to the whole process group of a `detached` process: what a terminal's Ctrl-C does. */
  signalGroup(signal: NodeJS.Signals): void {
    process.kill(-this.pid, signal);
  }

  /** SIGTERM (a graceful drain), escalated to SIGKILL after `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

export interface WorkerProcessEnv {
  temporalAddress: string;
  taskQueue: string;
  databaseUrl: string;
  llmBaseUrl: string;
  toolBaseUrl: string;
  toolApiKey: string;
  /** Further variables (LLM_TIMEOUT_MS, LOG_LEVEL, ...). */
  extra?: Record<string, string>;
}

/** `convengine worker` polling the given queue; resolves once it has bundled the workflows and connected. */
export function startWorkerProcess(
  env: WorkerProcessEnv,
  name = 'worker',
  nodeArgs?: string[]
): Promise<ConvengineProcess> {
  return ConvengineProcess.start(['worker'], {
    name,
    nodeArgs,
    ready: /worker polling /,
    readyTimeoutMs: 90_000,
    env: {
      TEMPORAL_ADDRESS: env.temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: env.taskQueue,
      DATABASE_URL: env.databaseUrl,
      ANTHROPIC_BASE_URL: env.llmBaseUrl,
      CONVENGINE_TOOL_DEMO_URL: env.toolBaseUrl,
      CONVENGINE_TOOL_DEMO_API_KEY: env.toolApiKey,
      ...env.extra,
    },
  });
}

export interface DevServerProcessOptions {
  /** 0 picks a free port (read back from the ready line); a restart passes the port it got. */
  port: number;
  /** In memory when absent. */
  persistPath?: string;
  searchAttributes: Record<string, string>;
  nodeArgs?: string[];
  /** Extra environment (CONVENGINE_USE_SOURCES=0: the compiled CLI, as deployed, not tsx). */
  env?: Record<string, string>;
}

/** `convengine devserver --persist <file>`; `port` of the result is the one it listens on. */
export async function startDevServerProcess(
  options: DevServerProcessOptions
): Promise<{ process: ConvengineProcess; port: number }> {
  const args = ['devserver', '--port', String(options.port)];
  if (options.persistPath) args.push('--persist', options.persistPath);
  for (const [name, type] of Object.entries(options.searchAttributes))
    args.push('--search-attribute', `${name}=${type}`);
  const proc = await ConvengineProcess.start(args, {
    name: 'devserver',
    ready: /ready at 127\.0\.0\.1:\d+/,
    nodeArgs: options.nodeArgs,
    ...(options.env ? { env: options.env } : {}),
  });
  return { process: proc, port: Number(proc.match(/ready at 127\.0\.0\.1:(\d+)/)) };
}
