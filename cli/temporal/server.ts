import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { shippedDynamicConfigFlags } from './dynamic-config';

/**
 * The one launcher of the real Temporal server (`temporal server start-dev`), used by
 * `convengine start --temporal=cli`, `npm run test:temporal`, the tests and the bench: loopback,
 * free ports, our namespaces and every turn search attribute registered at start, the shipped
 * dynamic config, SQLite in a file or in memory.
 */
export interface TemporalCliOptions {
  /** Path of the `temporal` binary (see installedTemporalCli). */
  binary: string;
  /** Namespaces created at start besides `default` (which always exists). */
  namespaces?: string[];
  /** Serve the Web UI. */
  ui?: boolean;
  /** Web UI port; a free one when absent or 0. */
  uiPort?: number;
  /** SQLite file that keeps state across restarts; in memory when absent. */
  dbFile?: string;
  /** Frontend gRPC port; a free one when absent or 0 (a restart passes the port it had). */
  port?: number;
  /** Extra `--dynamic-config-value` flags on top of the shipped ones (benchmarks compare defaults). */
  dynamicConfig?: string[];
  /** Leave out the shipped dynamic config (benchmarks of the server's defaults). */
  serverDefaults?: boolean;
  readyTimeoutMs?: number;
  /** Told when the server process has been spawned (it boots while the caller goes on). */
  onSpawn?(): void;
}

export interface TemporalCliServer {
  address: string;
  port: number;
  /** The Web UI, or null when headless. */
  uiUrl: string | null;
  /** PID of the server process itself (not of its guard). */
  pid: number;
  /** Resolves with the exit code once the server is gone. */
  exited: Promise<number | null>;
  /** Recent stdout and stderr, for error messages. */
  tail(): string;
  /** SIGTERM, escalated to SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL: a crash, for restart tests. */
  kill(): Promise<void>;
}

/**
 * Runs the server behind a tiny shell guard that holds our end of a pipe: when this process ends in
 * any way (even SIGKILL) the pipe closes, the guard's read returns and it stops the server, so no
 * server outlives the process that started it, whatever its process group. The guard prints the server's PID first.
 */
const GUARD = [
  'exec 3<&0',
  '"$@" </dev/null &',
  'server=$!',
  'echo "temporal-pid $server"',
  '{ read -r _ <&3; kill -TERM "$server" 2>/dev/null; } &',
  'watcher=$!',
  'wait "$server"',
  'status=$?',
  'kill "$watcher" 2>/dev/null',
  'exit $status',
].join('\n');

const TAIL_CHARS = 8_000;
const HEAD_CHARS = 1_000;

/** The start of the output and its last 2 000 characters, once each. */
function firstAndLast(head: string, tail: string): string {
  const last = tail.slice(-2_000);
  return last.startsWith(head) || head.length === 0 ? last : `${head}\n…\n${last}`;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves when `port` on 127.0.0.1 can be listened on now (0 always can); else rejects with Node's EADDRINUSE. */
export async function assertPortFree(port: number): Promise<void> {
  if (port === 0) return;
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/** The start-dev arguments for these options and ports. */
export function startDevArgs(options: TemporalCliOptions, port: number, uiPort: number | null): string[] {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn'];
  if (uiPort === null) args.push('--headless');
  else args.push('--ui-ip', '127.0.0.1', '--ui-port', String(uiPort));
  // WAL without an fsync per commit: state survives a crash of the server (not of the machine), and
  // a turn's ~100 small transactions stop waiting on the disk (with the default journal a seed turn
  // took ~20 s on a busy shared machine).
  if (options.dbFile) {
    args.push(
      '--db-filename',
      options.dbFile,
      '--sqlite-pragma',
      'journal_mode=WAL',
      '--sqlite-pragma',
      'synchronous=NORMAL'
    );
  }
  for (const namespace of options.namespaces ?? []) if (namespace !== 'default') args.push('--namespace', namespace);
  for (const [name, type] of Object.entries(TURN_SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);
  const dynamic = [...(options.serverDefaults ? [] : shippedDynamicConfigFlags()), ...(options.dynamicConfig ?? [])];
  for (const flag of dynamic) args.push('--dynamic-config-value', flag);
  return args;
}

/**
 * start-dev exited or hung before it served. `portClash`: one of its ports was taken, the one we probed or one it picks
 * itself (history, matching, its HTTP port), as its output said at any point.
 */
export class StartDevFailure extends Error {
  constructor(
    message: string,
    readonly portClash: boolean,
    /** The start and the end of what the server printed: why it did not serve (a one-line summary drops it). */
    readonly output: string,
    /** It was still starting when the ready timeout passed (rather than exited). */
    readonly timedOut: boolean
  ) {
    super(`${message}\n${output}`);
    this.name = 'StartDevFailure';
  }
}

/** How a server says a port it wanted is taken: Node, gRPC, Go's net package, start-dev's own checks. */
const PORT_CLASH = /EADDRINUSE|address already in use|No address added|can't set (frontend|UI) port/i;

/** A server that could not start because a port was taken: start-dev (as its output said) or our dev server. */
export function isPortClash(err: unknown): boolean {
  return err instanceof StartDevFailure ? err.portClash : PORT_CLASH.test(String(err));
}

export async function startTemporalCli(options: TemporalCliOptions): Promise<TemporalCliServer> {
  // A free port may be taken by someone else between the probe and the server's bind: try again.
  for (let attempt = 1; ; attempt++) {
    const port = options.port || (await freePort());
    const uiPort = options.ui ? options.uiPort || (await freePort()) : null;
    try {
      return await launch(options, port, uiPort);
    } catch (err) {
      if (!isPortClash(err) || options.port || options.uiPort || attempt >= 3) throw err;
    }
  }
}

async function launch(options: TemporalCliOptions, port: number, uiPort: number | null): Promise<TemporalCliServer> {
  const args = startDevArgs(options, port, uiPort);
  // Its own session and process group: a terminal's Ctrl-C (SIGINT to our group) reaches only us, and we stop the
  // server after the drain, when turns in flight no longer need it. The guard's pipe still ends it if we are killed.
  const child = spawn('/bin/sh', ['-c', GUARD, 'temporal-guard', options.binary, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  options.onSpawn?.();
  let output = '';
  let portClash = false;
  // Its first lines say why it stopped (a panic's message); the tail, where, and what came last.
  let head = '';
  const collect = (chunk: Buffer) => {
    const joined = output + chunk.toString();
    if (head.length < HEAD_CHARS) head = (head + chunk.toString()).slice(0, HEAD_CHARS);
    // Seen as it arrives: a Go panic's stack soon pushes the bind error out of the tail we keep.
    portClash ||= PORT_CLASH.test(joined.slice(-(chunk.length + 200)));
    output = joined.slice(-TAIL_CHARS);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await waitForReady(child, () => output, exited, options.readyTimeoutMs ?? 60_000).catch(
    async (err: unknown) => {
      child.stdin.end();
      await exited;
      const message = `temporal server start-dev: ${(err as Error).message}`;
      throw new StartDevFailure(message, portClash, firstAndLast(head, output), err instanceof ReadyTimeout);
    }
  );
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    const timer = setTimeout(() => killPid(ready.pid, 'SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return {
    address: `127.0.0.1:${port}`,
    port,
    uiUrl: uiPort === null ? null : `http://127.0.0.1:${uiPort}`,
    pid: ready.pid,
    exited,
    tail: () => output,
    stop,
    kill: async () => {
      killPid(ready.pid, 'SIGKILL');
      await exited;
    },
  };
}

function killPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

class ReadyTimeout extends Error {}

/** Resolves once start-dev printed its `Server:` line (it does so after the frontend serves). */
function waitForReady(
  child: ChildProcess,
  output: () => string,
  exited: Promise<number | null>,
  timeoutMs: number
): Promise<{ pid: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new ReadyTimeout(`not ready within ${timeoutMs} ms`)), timeoutMs);
    const check = () => {
      const pid = /temporal-pid (\d+)/.exec(output())?.[1];
      if (pid && /^Server:\s+\S+:\d+/m.test(output())) finish(null, Number(pid));
    };
    const finish = (err: Error | null, pid = 0) => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      if (err) reject(err);
      else resolve({ pid });
    };
    child.stdout?.on('data', check);
    void exited.then((code) => finish(new Error(`exited with ${code} before it was ready`)));
  });
}
