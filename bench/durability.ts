import { benchLangGraphPeer } from './peers/langgraph';
import { benchRoundTrip } from './round-trip';
import { historyTable, stepCostTable, turnCostTable, type CpuProbe, type LatencyRun } from './durability-costs';
import type { Row } from './table';
import { combineRpcs, NO_RPCS, scrapeWorkerRpcs } from './worker-rpcs';
import type { BenchStack } from './stack';
import {
  demoMix,
  durable,
  formatMs as ms,
  historyStats,
  inProcess,
  mean,
  offScriptCount,
  percentile,
  runMix,
  SECTION_LIMIT_MS,
  stackCpuMs,
  stepMsPerTurn,
  threadCpuMs,
  type Transport,
} from './turns';

/**
 * The durability rows of the table: the same demo turns through Temporal and in process, one at a
 * time (latency, activities, CPU per process, history size); throughput.ts has the concurrent runs.
 */
const LATENCY_CONVERSATIONS = 16;
/**
 * The latency turns alternate between durable and in-process in rounds of this many conversations:
 * a shared 2-core machine drifts in speed by tens of percent over a minute, and the ratio of the two
 * means something only when both saw the same machine.
 */
const LATENCY_ROUND = 2;
/**
 * Turns run on both sides before anything is measured. A worker runs for days; its first turns are
 * not what a turn costs: V8 keeps optimizing the hot code of the worker, the Temporal server (ours
 * is Node too) and this process for about a hundred turns (bench/README.md, "Warm-up", has the
 * curve, which every run prints). Three windows of 16 conversations, 40 turns each.
 */
const WARM_UP = { windows: 3, conversations: 16, concurrency: 8 };

function threadDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([name, cpu]) => [name, cpu - (before[name] ?? 0)]));
}

async function measured(stack: BenchStack, send: Transport, conversations: number, concurrency = 1) {
  // The RPC counters are read outside the CPU window: serving and reading a scrape is no turn's work.
  const rpcsBefore = await scrapeWorkerRpcs(stack.workerMetricsAddress);
  const before = stackCpuMs(stack);
  const threadsBefore = threadCpuMs(stack.worker.pid);
  const run = await runMix(demoMix(conversations), send, concurrency, Date.now() + SECTION_LIMIT_MS);
  const after = stackCpuMs(stack);
  const cpu = {
    turns: run.samples.length,
    workerMs: after.worker - before.worker,
    workerThreads: threadDelta(threadsBefore, threadCpuMs(stack.worker.pid)),
    serverMs: after.server - before.server,
    clientMs: after.client - before.client,
    postgresMs: after.postgres - before.postgres,
  };
  const rpcs = combineRpcs(await scrapeWorkerRpcs(stack.workerMetricsAddress), rpcsBefore, -1);
  const probe: CpuProbe = { ...cpu, rpcs };
  return { samples: run.samples, cpu: probe };
}

type Measured = Awaited<ReturnType<typeof measured>>;

function merged(a: Measured, b: Measured): Measured {
  const threads = { ...a.cpu.workerThreads };
  for (const [name, ms] of Object.entries(b.cpu.workerThreads)) threads[name] = (threads[name] ?? 0) + ms;
  return {
    samples: [...a.samples, ...b.samples],
    cpu: {
      turns: a.cpu.turns + b.cpu.turns,
      workerMs: a.cpu.workerMs + b.cpu.workerMs,
      workerThreads: threads,
      serverMs: a.cpu.serverMs + b.cpu.serverMs,
      clientMs: a.cpu.clientMs + b.cpu.clientMs,
      postgresMs: a.cpu.postgresMs + b.cpu.postgresMs,
      rpcs: combineRpcs(a.cpu.rpcs, b.cpu.rpcs, 1),
    },
  };
}

/** The latency turns, durable and in-process alternating in rounds (LATENCY_ROUND says why). */
async function alternated(stack: BenchStack): Promise<{ d: Measured; p: Measured }> {
  const none: Measured = {
    samples: [],
    cpu: { turns: 0, workerMs: 0, workerThreads: {}, serverMs: 0, clientMs: 0, postgresMs: 0, rpcs: NO_RPCS },
  };
  let d = none;
  let p = none;
  for (let done = 0; done < LATENCY_CONVERSATIONS; done += LATENCY_ROUND) {
    d = merged(d, await measured(stack, durable(stack), LATENCY_ROUND));
    p = merged(p, await measured(stack, inProcess(stack), LATENCY_ROUND));
  }
  return { d, p };
}

/**
 * Brings both sides to their steady state (WARM_UP says why): caches, prepared statements, the
 * workflow cache, JIT. Returns the curve: CPU per turn of each window, worker and in process.
 */
export async function warmUp(stack: BenchStack): Promise<Row[]> {
  const worker: string[] = [];
  const inProcessCpu: string[] = [];
  let turns = 0;
  for (let window = 0; window < WARM_UP.windows; window++) {
    const d = await measured(stack, durable(stack), WARM_UP.conversations, WARM_UP.concurrency);
    const p = await measured(stack, inProcess(stack), WARM_UP.conversations, WARM_UP.concurrency);
    worker.push((d.cpu.workerMs / Math.max(1, d.cpu.turns)).toFixed(0));
    inProcessCpu.push((p.cpu.clientMs / Math.max(1, p.cpu.turns)).toFixed(0));
    turns += d.cpu.turns;
  }
  return [
    [
      'Warm-up: CPU per turn, window by window',
      `worker ${worker.join(' → ')} ms; in process ${inProcessCpu.join(' → ')} ms`,
      `before anything above is measured, each side runs ${turns} turns of the demo mix, ${WARM_UP.concurrency} conversations at a time, ` +
        `in ${WARM_UP.windows} windows; V8 optimizes the worker's (and our dev server's, and this process's) hot code for about a hundred ` +
        `turns, and every other row is the steady state a long-running worker reaches`,
    ],
  ];
}

export async function latencyRows(stack: BenchStack): Promise<Row[]> {
  const { d, p } = await alternated(stack);
  const history = await historyStats(stack, d.samples);
  // Every step of the turn, regular or local: the chains and the LangGraph peer run as many.
  const steps = Math.round(history.meanSteps);
  const roundTrip = await benchRoundTrip(stack, history.medianInput, steps);
  const peer = await benchLangGraphPeer(stack.tdb.pool, history.medianInput, steps);
  const stepMs = { d: await stepMsPerTurn(stack, d.samples), p: await stepMsPerTurn(stack, p.samples) };
  const run = { d, p, history, roundTrip, peer, stepMs };
  return [...latencyTable(run), ...stepCostTable(run), ...turnCostTable(run), ...historyTable(run)];
}

function latencyTable({ d, p }: LatencyRun): Row[] {
  const dMs = d.samples.map((s) => s.ms);
  const pMs = p.samples.map((s) => s.ms);
  return [
    [
      'Turn latency p50 / p95 — durable',
      `${ms(percentile(dMs, 50))} / ${ms(percentile(dMs, 95))}`,
      `${d.samples.length} turns one at a time: gateway → Temporal server process → worker process; mean ${ms(mean(dMs))}; ${offScriptCount(d.samples)} replies off-script; ` +
        `alternating with the in-process turns, ${LATENCY_ROUND} conversations at a time`,
    ],
    [
      'Turn latency p50 / p95 — in-process',
      `${ms(percentile(pMs, 50))} / ${ms(percentile(pMs, 95))}`,
      `same turns through runTurnInProcess (same activity functions, no Temporal); mean ${ms(mean(pMs))}; ${offScriptCount(p.samples)} off-script`,
    ],
    [
      'Cost of durability (durable ÷ in-process)',
      `×${(percentile(dMs, 50) / percentile(pMs, 50)).toFixed(2)} p50, ×${(percentile(dMs, 95) / percentile(pMs, 95)).toFixed(2)} p95`,
      `+${ms(mean(dMs) - mean(pMs))} per turn on the mean`,
    ],
  ];
}
