import { benchLangGraphPeer, type LangGraphPeerResult } from './peers/langgraph';
import { benchRoundTrip, type RoundTripResult } from './round-trip';
import { HEARTBEAT_INTERVAL_MS } from '../activities/runtime/heartbeat';
import type { Row } from './table';
import { combineRpcs, NO_RPCS, scrapeWorkerRpcs, workerRpcRow, type WorkerRpcs } from './worker-rpcs';
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
  type HistoryStats,
  type TurnSample,
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

interface CpuProbe {
  turns: number;
  workerMs: number;
  /** Worker CPU by thread name: `node` (JS: main, workflow threads, V8 helpers), `tokio-runtime-w` (sdk-core), ... */
  workerThreads: Record<string, number>;
  serverMs: number;
  clientMs: number;
  /** Every local PostgreSQL process (turns.ts, postgresCpuMs): the database's share, the same on both sides. */
  postgresMs: number;
  /** The worker's calls to the server in the window. */
  rpcs: WorkerRpcs;
}

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

interface LatencyRun {
  d: { samples: TurnSample[]; cpu: CpuProbe };
  p: { samples: TurnSample[]; cpu: CpuProbe };
  history: HistoryStats;
  roundTrip: RoundTripResult[];
  peer: LangGraphPeerResult;
  /** Per turn, the time inside the steps (their STEP_EXIT durations), durable and in-process. */
  stepMs: { d: number; p: number };
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
  return [...latencyTable(run), ...costTable(run), ...historyTable(run)];
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

function threads(cpu: CpuProbe): string {
  return Object.entries(cpu.workerThreads)
    .filter(([, ms]) => ms > 0)
    .map(([name, total]) => `${name} ${ms(total / Math.max(1, cpu.turns))}`)
    .join(', ');
}

function costTable({ d, p, history, roundTrip, peer }: LatencyRun): Row[] {
  const durabilityMs = mean(d.samples.map((s) => s.ms)) - mean(p.samples.map((s) => s.ms));
  const overhead = durabilityMs / history.meanSteps;
  const per = (total: number, turns: number) => ms(total / Math.max(1, turns));
  const [bare, sized, local] = roundTrip;
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const regular = history.meanActivities;
  const localActivities = history.costs.localActivities;
  const floor = regular * (sized?.msPerActivity ?? NaN) + localActivities * (local?.msPerActivity ?? NaN);
  return [
    [
      'Steps per turn: in regular / local activities',
      `${history.costs.regularSteps.toFixed(1)} / ${history.costs.localSteps.toFixed(1)}`,
      `mean over the durable turns' histories, ${history.meanSteps.toFixed(1)} steps in all (in-process count: ${mean(p.samples.map((s) => s.activities)).toFixed(1)}); ` +
        `in ${regular.toFixed(1)} regular and ${localActivities.toFixed(1)} local activities (step runs, core/turn/step-runs.ts)`,
    ],
    [
      'Per-step overhead',
      `${ms(overhead)} (LangGraph JS + PostgresSaver: ${ms(peer.overheadMsPerStep)})`,
      `ours: (mean durable − mean in-process turn latency) ÷ steps per turn, regular and local. LangGraph (bench/peers/langgraph.ts): ` +
        `a ${peer.steps}-node chain carrying the same ${(peer.payloadBytes / 1024).toFixed(1)} KiB payload on the same PostgreSQL, ` +
        `(checkpoint saved before the next step − no checkpointer) ÷ steps: ${ms(peer.syncMsPerStep)} − ${ms(peer.inMemoryMsPerStep)} ` +
        `per step (p95 ${ms(peer.p95SyncMsPerStep)}); with its default async checkpoints ${ms(peer.asyncOverheadMsPerStep)}; ${peer.runs} runs each`,
    ],
    [
      "Temporal's floor per turn",
      `${ms(floor)} of ${ms(durabilityMs)}`,
      `what the turn's activities would cost as no-ops of the same kinds: ${regular.toFixed(1)} × the round trip with the payload ` +
        `+ ${localActivities.toFixed(1)} × the local-activity step (rows below); the rest of the cost of durability is ours`,
    ],
    [
      'Bare activity round trip',
      `${ms(bare?.msPerActivity ?? NaN)} empty / ${ms(sized?.msPerActivity ?? NaN)} with a ${kib(sized?.payloadBytes ?? 0)} payload`,
      `no-op echo activities chained ${Math.round(history.meanSteps)} per workflow on the same Temporal server (SDK worker in the bench process); ` +
        `server CPU ${ms(bare?.serverCpuMsPerActivity ?? NaN)} / ${ms(sized?.serverCpuMsPerActivity ?? NaN)}, ` +
        `worker + client CPU ${ms(bare?.workerCpuMsPerActivity ?? NaN)} / ${ms(sized?.workerCpuMsPerActivity ?? NaN)} per activity; payload = median turn activity input`,
    ],
    [
      'Same chain as local activities',
      `${ms(local?.msPerActivity ?? NaN)} per step with the same payload`,
      `proxyLocalActivities: run by the worker running the workflow, recorded as markers; server CPU ${ms(local?.serverCpuMsPerActivity ?? NaN)} per step`,
    ],
    [
      'CPU per durable turn',
      `worker ${per(d.cpu.workerMs, d.cpu.turns)}, server ${per(d.cpu.serverMs, d.cpu.turns)}, client ${per(d.cpu.clientMs, d.cpu.turns)}, ` +
        `PostgreSQL ${per(d.cpu.postgresMs, d.cpu.turns)}`,
      `worker by thread: ${threads(d.cpu)}; in-process turn: ${per(p.cpu.clientMs, p.cpu.turns)} CPU, PostgreSQL ${per(p.cpu.postgresMs, p.cpu.turns)} ` +
        `(user + system, /proc and process.cpuUsage; PostgreSQL: every local postgres process)`,
    ],
    workerRpcRow(d.cpu.rpcs, d.cpu.turns),
    [
      'History size per turn',
      `${history.meanEvents.toFixed(0)} events, ${kib(history.meanBytes)}`,
      `mean of ${history.turns} turns; largest ${history.maxEvents} events, ${kib(history.maxBytes)} (encoded History proto)`,
    ],
  ];
}

/** Where the durable turn's time went, from its history's timestamps (bench/history-timeline.ts). */
function timelineRow({ history }: LatencyRun): Row {
  const t = history.timeline;
  const each = (total: number, count: number) => ms(total / Math.max(1e-9, count));
  const activities = t.activityMsByType.reduce((sum, [, total]) => sum + total, 0);
  const byType = t.activityMsByType.map(([type, total]) => `${type} ${ms(total)}`).join(', ');
  return [
    'Durable turn by phase (history timestamps)',
    `workflow tasks ${t.workflowTasks.toFixed(1)} × ${each(t.workflowTaskMs, t.workflowTasks)}, ` +
      `with local activities ${t.localActivityTasks.toFixed(1)} × ${each(t.localActivityTaskMs, t.localActivityTasks)}, ` +
      `activities ${ms(activities)}, between ${ms(t.betweenMs)}, of a ${ms(t.spanMs)} span`,
    `per turn. A workflow task runs workflow code in the worker (sandbox, payloads, the SDK's calls into it); one that ran local ` +
      `activities includes their steps' work. Activities from start to close: ${byType}. ` +
      `Between: neither ran (the server handing tasks over, polls); eager activities overlap the task that scheduled them`,
  ];
}

/** The same steps' own time on both sides: how much of the cost of durability is the steps running slower. */
function stepTimeRow({ d, p, stepMs }: LatencyRun): Row {
  const durabilityMs = mean(d.samples.map((s) => s.ms)) - mean(p.samples.map((s) => s.ms));
  const name = 'Time inside the steps per turn: durable / in-process';
  if (Number.isNaN(stepMs.d) || Number.isNaN(stepMs.p)) {
    return [name, 'n/a', 'read from the STEP_EXIT audit rows, which the audit policy (BENCH_AUDIT_POLICY) leaves out'];
  }
  return [
    name,
    `${ms(stepMs.d)} / ${ms(stepMs.p)}`,
    `the steps' own durations (their STEP_EXIT audit rows, measured by the same code on both sides): ` +
      `${ms(stepMs.d - stepMs.p)} of the ${ms(durabilityMs)} cost of durability is the same steps running slower in the worker ` +
      `process, whose LLM calls, tool calls and queries leave its process; the in-process turns run beside the scripted LLM and tool servers`,
  ];
}

function historyTable(run: LatencyRun): Row[] {
  const { history } = run;
  const c = history.costs;
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const top = c.bytesByStep.slice(0, 5).map(([step, bytes]) => `${step} ${kib(bytes)}`);
  return [
    timelineRow(run),
    stepTimeRow(run),
    [
      'History bytes per step type',
      top.join(', '),
      `per turn, events of each activity type (scheduled + started + closed); all: ${c.bytesByStep
        .map(([step, bytes]) => `${step} ${kib(bytes)}`)
        .join(', ')}`,
    ],
    [
      'Events per turn: activities regular / local',
      `${c.activities.toFixed(1)} / ${c.localActivities.toFixed(1)}`,
      `${c.activityAttempts.toFixed(1)} activity attempts; local activities in ${c.localActivityTasks.toFixed(1)} workflow tasks; ` +
        `${c.searchAttributeUpserts.toFixed(1)} search-attribute upserts, ${c.updates.toFixed(1)} updates`,
    ],
    [
      'Billable actions per turn (estimated)',
      c.billableActions.toFixed(1),
      `1 workflow start + ${c.activityAttempts.toFixed(1)} activity attempts + ${c.localActivityTasks.toFixed(1)} workflow tasks with local activities ` +
        `+ ${c.searchAttributeUpserts.toFixed(1)} SA upserts + ${c.updates.toFixed(1)} updates + ${c.heartbeats.toFixed(1)} heartbeats ` +
        `(estimated: one per ${HEARTBEAT_INTERVAL_MS / 1000} s an activity ran)`,
    ],
  ];
}
