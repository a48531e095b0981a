import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Benchmark: how long `npm start` (`node bin/convengine.js start`) takes on a fresh home until it
 * prints "ConvEngine ready in …": node start-up and the compiled CLI (bin/compiled-cli.js, built before the
 * first run so no run pays for it), the embedded PostgreSQL (initdb on the first start
 * of a home, reused on the second), migrations, every seed pack,
 * the embedded dev server, the workflow bundle (webpack) and the worker and API. Embedded defaults
 * only: DATABASE_URL, TEMPORAL_ADDRESS and the ANTHROPIC_* variables are removed from its env.
 */
export interface ReadyTimes {
  /** Spawn to ready line, per run (ms). */
  wallMs: number[];
  /** What the process itself reported ("ready in X s"), per run (ms). */
  reportedMs: number[];
}

export interface ReadyTimeBench {
  name: 'ready-time';
  runs: number;
  /** A fresh --home: initdb included. */
  first: ReadyTimes;
  /** The same --home again: its database is reused. */
  second: ReadyTimes;
}

const BIN = join(__dirname, '..', 'bin', 'convengine.js');
const EXTERNAL = [
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'CONVENGINE_TOOL_DEMO_URL',
];

function startOnce(home: string, timeoutMs: number): Promise<{ wallMs: number; reportedMs: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['CONVENGINE_USE_SOURCES'];
  for (const name of EXTERNAL) delete env[name];
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--temporal-port', '0', '--home', home], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const ready = new Promise<{ wallMs: number; reportedMs: number }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not ready within ${timeoutMs} ms: ${output.slice(-500)}`)),
      timeoutMs
    );
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /ready in ([\d.]+)s/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({ wallMs: performance.now() - started, reportedMs: Number(match[1]) * 1000 });
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => reject(new Error(`start exited before it was ready: ${output.slice(-500)}`)));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(force);
  };
  return ready.finally(stop);
}

export async function benchReadyTime(runs = 2, timeoutMs = 180_000): Promise<ReadyTimeBench> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the plain-JS launcher helper
  (require('../bin/compiled-cli') as { compiledCliEntry(): string }).compiledCliEntry();
  const first: ReadyTimes = { wallMs: [], reportedMs: [] };
  const second: ReadyTimes = { wallMs: [], reportedMs: [] };
  const record = (into: ReadyTimes, run: { wallMs: number; reportedMs: number }) => {
    into.wallMs.push(run.wallMs);
    into.reportedMs.push(run.reportedMs);
  };
  for (let i = 0; i < runs; i++) {
    const home = mkdtempSync(join(tmpdir(), 'ce-bench-start-'));
    try {
      record(first, await startOnce(home, timeoutMs));
      record(second, await startOnce(home, timeoutMs));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
  return { name: 'ready-time', runs, first, second };
}

const seconds = (values: number[]) => values.map((ms) => (ms / 1000).toFixed(1)).join(' / ');

if (require.main === module) {
  void benchReadyTime().then((r) => {
    for (const [label, t] of [
      ['first start', r.first],
      ['second start', r.second],
    ] as const) {
      console.log(`ready-time, ${label}: ${seconds(t.wallMs)} s from spawn (reported ${seconds(t.reportedMs)} s)`);
    }
  });
}
