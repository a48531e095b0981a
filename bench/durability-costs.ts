/**
 * The cost rows of the durability table (bench/durability.ts measures): per step, per turn, and
 * where the durable turn's time and history bytes went.
 */
import type { LangGraphPeerResult } from './peers/langgraph';
import type { RoundTripResult } from './round-trip';
import { HEARTBEAT_INTERVAL_MS } from '../activities/runtime/heartbeat';
import type { Row } from './table';
import { workerRpcRow, type WorkerRpcs } from './worker-rpcs';
import { formatMs as ms, mean, type HistoryStats, type TurnSample } from './turns';

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

export interface CpuProbe {
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

export interface LatencyRun {
  d: { samples: TurnSample[]; cpu: CpuProbe };
  p: { samples: TurnSample[]; cpu: CpuProbe };
  history: HistoryStats;
  roundTrip: RoundTripResult[];
  peer: LangGraphPeerResult;
  /** Per turn, the time inside the steps (their STEP_EXIT durations), durable and in-process. */
  stepMs: { d: number; p: number };
}

function threads(cpu: CpuProbe): string {
  return Object.entries(cpu.workerThreads)
    .filter(([, ms]) => ms > 0)
    .map(([name, total]) => `${name} ${ms(total / Math.max(1, cpu.turns))}`)
    .join(', ');
}

/** What a step of the durable turn costs: ours, LangGraph's, and Temporal's own floor. */
export function stepCostTable({ d, p, history, roundTrip, peer }: LatencyRun): Row[] {
  const durabilityMs = mean(d.samples.map((s) => s.ms)) - mean(p.samples.map((s) => s.ms));
  const overhead = durabilityMs / history.meanSteps;
  const [bare, sized, local] = roundTrip;
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
  ];
}

/** What a durable turn costs in CPU per process, calls to the server and history size. */
export function turnCostTable({ d, p, history }: LatencyRun): Row[] {
  const per = (total: number, turns: number) => ms(total / Math.max(1, turns));
  return [
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

export function historyTable(run: LatencyRun): Row[] {
  const { history } = run;
  const c = history.costs;
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
