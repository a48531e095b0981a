/**
 * What the dev server keeps per closed run while retention holds it: process memory, the bytes behind a
 * run's state, journal bytes, and the cost of loading them again at a restart. The runs are turn-shaped
 * (`activityChain`: 8 activities handing a 3 KB payload along, ~50 events and ~50 KB of history, as a
 * conversation turn has), driven by the real SDK in this process, as `convengine start` runs them.
 * Used by `scripts/devserver-memory.ts` and by `npm run bench` (micro section, "Dev server memory per retained turn").
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { startDevServer } from '../devserver';
import { Engine } from '../devserver/engine/engine';
import type { RunState } from '../devserver/engine/state';
import { collector } from '../test/support/collector';

const WARM_UP_RUNS = 20;
const STEPS = 8;
const PAYLOAD = 'x'.repeat(3 * 1024);
const CONCURRENCY = 8;
const TASK_QUEUE = 'devserver-memory';

export interface RetainedRunCosts {
  runs: number;
  eventsPerRun: number;
  historyBytesPerRun: number;
  /** What the server's retained runs hold, measured by deleting them: V8 heap and Buffers. */
  heldHeapPerRun: number;
  heldExternalPerRun: number;
  /** Growth of the whole process (server and worker) per run; indicative, RSS is rarely given back. */
  rssPerRun: number;
  /** Distinct ArrayBuffers behind the runs' encoded events (a pooled slice keeps its whole pool alive). */
  encodedBackingPerRun: number;
  /** Distinct ArrayBuffers behind every other Buffer a run reaches (decoded events, snapshot fields). */
  otherBackingPerRun: number;
  /** Journal bytes appended per run: its events, and the snapshots of its state written at each transition. */
  journalEventsPerRun: number;
  journalSnapshotsPerRun: number;
  compactedJournalPerRun: number;
  restartMs: number;
  /** V8 heap and Buffers a restart holds per loaded run. */
  restartHeldPerRun: number;
}

interface Usage {
  rss: number;
  heapAndExternal: number;
  heap: number;
  external: number;
}

async function settledUsage(): Promise<Usage> {
  const gc = collector();
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const usage = process.memoryUsage();
  return {
    rss: usage.rss,
    heap: usage.heapUsed,
    external: usage.external,
    heapAndExternal: usage.heapUsed + usage.external,
  };
}

/** Every run (and its engine) the engines of this process create, so their state can be inspected. */
function captureRuns(): { runs: Set<RunState>; engines: Set<Engine>; release(): void } {
  const runs = new Set<RunState>();
  const engines = new Set<Engine>();
  const original = Engine.prototype.addRun;
  Engine.prototype.addRun = function addRun(this: Engine, run: RunState): void {
    runs.add(run);
    engines.add(this);
    original.call(this, run);
  };
  return { runs, engines, release: () => void (Engine.prototype.addRun = original) };
}

/** Bytes the journal appends, by record type (`event` lines, `run` snapshots). */
function countJournalWrites(): { bytes: Map<string, number>; release(): void } {
  const bytes = new Map<string, number>();
  // The module object itself, not an import's namespace: the store's `fs.appendFileSync` reads it at each call.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- patched for the measurement, restored after
  const nodeFs = require('node:fs') as { appendFileSync: typeof fs.appendFileSync };
  const original = nodeFs.appendFileSync;
  nodeFs.appendFileSync = ((
    file: fs.PathOrFileDescriptor,
    data: string | Uint8Array,
    options?: fs.WriteFileOptions
  ) => {
    for (const line of String(data).split('\n')) {
      const type = /^\{"t":"(\w+)"/.exec(line)?.[1];
      if (type) bytes.set(type, (bytes.get(type) ?? 0) + line.length + 1);
    }
    original(file, data, options);
  }) as typeof fs.appendFileSync;
  return { bytes, release: () => void (nodeFs.appendFileSync = original) };
}

/** Bytes of the distinct ArrayBuffers behind the Uint8Arrays reachable from `roots`, skipping `seen` ones. */
function backingBytes(roots: Iterable<unknown>, seen: Set<ArrayBufferLike>): number {
  let total = 0;
  const visited = new Set<object>();
  const stack: unknown[] = [...roots];
  while (stack.length > 0) {
    const value = stack.pop();
    if (!value || typeof value !== 'object' || visited.has(value)) continue;
    visited.add(value);
    if (value instanceof Uint8Array) {
      if (!seen.has(value.buffer)) {
        seen.add(value.buffer);
        total += value.buffer.byteLength;
      }
      continue;
    }
    for (const child of Object.values(value)) stack.push(child);
  }
  return total;
}

function stateCosts(
  runs: Set<RunState>
): Pick<RetainedRunCosts, 'eventsPerRun' | 'historyBytesPerRun' | 'encodedBackingPerRun' | 'otherBackingPerRun'> {
  const seen = new Set<ArrayBufferLike>();
  const encoded = backingBytes(
    [...runs].map((run) => run.encodedHistory),
    seen
  );
  const other = backingBytes(runs, seen);
  let events = 0;
  let history = 0;
  for (const run of runs) {
    events += run.encodedHistory.length;
    history += run.historySizeBytes;
  }
  const n = runs.size;
  return {
    eventsPerRun: events / n,
    historyBytesPerRun: history / n,
    encodedBackingPerRun: encoded / n,
    otherBackingPerRun: other / n,
  };
}

/** Runs workflows on a server: `drive(n)` runs about n and says how many it ran. */
export interface RunDriver {
  drive(count: number): Promise<number>;
  close(): Promise<void>;
}

/** Starts a RunDriver on the server at `address` (namespace `namespace`). */
export type StartRunDriver = (server: { address: string; namespace: string }) => Promise<RunDriver>;

/** A worker and a client on `address`; `drive(n)` runs n turn-shaped workflows, 8 at a time. */
async function turnDriver({ address }: { address: string }): Promise<RunDriver> {
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  const worker = await Worker.create({
    connection,
    taskQueue: TASK_QUEUE,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, 'workflows', 'round-trip.ts'),
      logger: new DefaultLogger('ERROR'),
    }),
    activities: { echo: async (payload: unknown) => payload },
  });
  const running = worker.run();
  const client = new Client({ connection: clientConnection });
  const drive = async (count: number): Promise<number> => {
    let remaining = count;
    const lane = async (): Promise<void> => {
      while (remaining-- > 0) {
        const args = [STEPS, PAYLOAD];
        await client.workflow.execute('activityChain', { taskQueue: TASK_QUEUE, workflowId: randomUUID(), args });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    return count;
  };
  const close = async (): Promise<void> => {
    worker.shutdown();
    await running;
    await clientConnection.close();
    await connection.close();
  };
  return { drive, close };
}

/** What deleting every run of `engine` frees (V8 heap, Buffers): what the runs held. */
async function heldByRuns(engine: Engine): Promise<{ heap: number; external: number }> {
  const before = await settledUsage();
  engine.store = undefined; // the journal keeps them: a look at it afterwards finds every run
  engine.transact(() => [...engine.runs.values()].forEach((run) => engine.deleteRun(run)));
  const after = await settledUsage();
  return { heap: before.heap - after.heap, external: before.external - after.external };
}

async function timedRestart(persistPath: string): Promise<{ ms: number; held: number }> {
  const stopped = await settledUsage();
  const started = performance.now();
  const restarted = await startDevServer({ port: 0, persistPath });
  const ms = performance.now() - started;
  const loaded = await settledUsage();
  await restarted.stop();
  return { ms, held: loaded.heapAndExternal - stopped.heapAndExternal };
}

/**
 * Runs about `count` workflows on a journaled in-process server and measures what they leave behind: turn-shaped ones
 * by default, or those `startDriver` runs (bench/seed-turn-driver.ts: the seed conversations' real turns).
 */
export async function measureRetainedRuns(
  count: number,
  directory: string,
  startDriver: StartRunDriver = turnDriver
): Promise<RetainedRunCosts> {
  const persistPath = path.join(directory, 'temporal-devserver.jsonl');
  const capture = captureRuns();
  const journal = countJournalWrites();
  try {
    const server = await startDevServer({ port: 0, persistPath });
    const driver = await startDriver(server);
    await driver.drive(WARM_UP_RUNS);
    const before = await settledUsage();
    journal.bytes.clear();
    count = await driver.drive(count);
    const after = await settledUsage();
    const [engine] = capture.engines;
    const state = stateCosts(capture.runs);
    const total = capture.runs.size;
    capture.runs.clear();
    await driver.close();
    await server.stop();
    const journalBytes = new Map(journal.bytes);
    const restart = await timedRestart(persistPath);
    const compacted = fs.statSync(persistPath).size;
    const held = engine ? await heldByRuns(engine) : { heap: NaN, external: NaN };
    return {
      runs: count,
      ...state,
      heldHeapPerRun: held.heap / total,
      heldExternalPerRun: held.external / total,
      rssPerRun: (after.rss - before.rss) / count,
      journalEventsPerRun: (journalBytes.get('event') ?? 0) / count,
      journalSnapshotsPerRun: (journalBytes.get('run') ?? 0) / count,
      compactedJournalPerRun: compacted / total,
      restartMs: restart.ms,
      restartHeldPerRun: restart.held / total,
    };
  } finally {
    journal.release();
    capture.release();
  }
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** `npm run bench`'s rows: what the embedded dev server keeps per turn while retention holds it. */
export async function devServerMemoryRows(directory: string, count = 300): Promise<[string, string, string][]> {
  const c = await measureRetainedRuns(count, directory);
  const shape = `${c.runs} turn-shaped runs (${c.eventsPerRun.toFixed(0)} events, ${kib(c.historyBytesPerRun)} of history each)`;
  return [
    [
      'Dev server memory per retained turn',
      kib(c.heldHeapPerRun + c.heldExternalPerRun),
      `${shape} kept by retention (DEVSERVER_RETENTION_MS): V8 heap ${kib(c.heldHeapPerRun)}, Buffers ${kib(c.heldExternalPerRun)}; measured by deleting them`,
    ],
    [
      'Dev server journal per retained turn',
      kib(c.compactedJournalPerRun),
      `after compaction; appended while the turn ran: events ${kib(c.journalEventsPerRun)}, run snapshots ${kib(c.journalSnapshotsPerRun)}; restart with ${c.runs} turns ${c.restartMs.toFixed(0)} ms`,
    ],
  ];
}
