import { cpus } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { Row } from './table';
import type { BenchStack } from './stack';
import {
  demoMix,
  durable,
  formatMs as ms,
  inProcess,
  offScriptCount,
  percentile,
  runConversation,
  runMix,
  SECTION_LIMIT_MS,
  stackCpuMs,
  type StackCpu,
  type TurnSample,
  type Transport,
} from './turns';

/** Conversations at a time: each lane starts a new conversation of the demo mix as its last one ends. */
const LEVELS = [1, 8, 32];
/**
 * Turns that end in a level's first seconds are not counted: every lane has started by then, so the
 * window sees the load the level names, not its ramp. Turns still running at the window's end are not
 * counted either, so a level never waits for its slowest conversation to finish.
 */
const WARM_MS = 1_500;
const WINDOW_MS = 6_000;
/**
 * The earlier measurement, kept beside the sustained one: 32 conversations started at once, timed until
 * the last one ends. Its rate includes the ramp and the tail, in which the shorter conversations have
 * ended and fewer than 32 run (the issues' "now" figures were taken so).
 */
const BURST = { concurrency: 32, conversations: 32 };

export interface LevelRun {
  turnsPerSecond: number;
  /** The window, in performance.now() time. */
  window: { from: number; to: number };
  /** The turns that ended in the window. */
  counted: TurnSample[];
  offScript: number;
  /** CPU of every process per counted turn, over the window. */
  perTurn: StackCpu;
  totalPerTurn: number;
}

function perTurnCpu(before: StackCpu, after: StackCpu, turns: number): Pick<LevelRun, 'perTurn' | 'totalPerTurn'> {
  const perTurn = Object.fromEntries(
    Object.entries(after).map(([name, cpu]) => [name, (cpu - before[name as keyof StackCpu]) / Math.max(1, turns)])
  ) as StackCpu;
  return { perTurn, totalPerTurn: Object.values(perTurn).reduce((sum, v) => sum + v, 0) };
}

export interface SustainedLoad {
  concurrency: number;
  warmMs: number;
  windowMs: number;
  /** CPU of every process so far (stackCpuMs). */
  cpu: () => StackCpu;
}

/** One level on one side under sustained load: the turns that ended in the window, and the CPU spent in it. */
export async function sustainedRun(send: Transport, load: SustainedLoad): Promise<LevelRun> {
  const { concurrency, warmMs, windowMs, cpu } = load;
  const mix = demoMix(2);
  const samples: TurnSample[] = [];
  let started = 0;
  let stopping = false;
  const lane = async () => {
    while (!stopping) {
      const conversation = mix[started++ % mix.length];
      if (!conversation) throw new Error('empty demo mix');
      await runConversation(conversation, send, samples, () => !stopping);
    }
  };
  // A failed turn stops every lane; the failure is thrown after the window, when the lanes are awaited.
  const lanes = Promise.all(Array.from({ length: concurrency }, lane)).then(
    () => null,
    (err: unknown) => {
      stopping = true;
      return err;
    }
  );
  await delay(warmMs);
  const before = cpu();
  const from = performance.now();
  await delay(windowMs);
  const after = cpu();
  const to = performance.now();
  stopping = true;
  const failure = await lanes;
  if (failure) throw failure;
  const counted = samples.filter((s) => s.endedAt >= from && s.endedAt < to);
  return {
    turnsPerSecond: counted.length / ((to - from) / 1000),
    window: { from, to },
    counted,
    offScript: offScriptCount(samples),
    ...perTurnCpu(before, after, counted.length),
  };
}

/** The burst rate of both sides, as the earlier table measured it. */
async function burstRates(stack: BenchStack): Promise<{ durable: number; inProcess: number; offScript: number }> {
  const rate = async (send: Transport) => {
    const run = await runMix(demoMix(BURST.conversations), send, BURST.concurrency, Date.now() + SECTION_LIMIT_MS);
    return { perSecond: run.samples.length / run.seconds, offScript: offScriptCount(run.samples) };
  };
  const d = await rate(durable(stack));
  const p = await rate(inProcess(stack));
  return { durable: d.perSecond, inProcess: p.perSecond, offScript: d.offScript + p.offScript };
}

/** What the machine's cores allow at the highest level: CPU per turn across every process, and the rate it bounds. */
function cpuBoundRow(d: LevelRun, p: LevelRun, concurrency: number): Row {
  const cores = cpus().length;
  const bound = (r: LevelRun) => `${((cores * 1000) / r.totalPerTurn).toFixed(1)} turns/s`;
  const parts = (r: LevelRun) =>
    `worker ${ms(r.perTurn.worker)}, server ${ms(r.perTurn.server)}, client ${ms(r.perTurn.client)}, PostgreSQL ${ms(r.perTurn.postgres)}`;
  return [
    `CPU per turn at concurrency ${concurrency}, every process → the rate ${cores} cores allow`,
    `durable ${ms(d.totalPerTurn)} → ${bound(d)}; in-process ${ms(p.totalPerTurn)} → ${bound(p)}`,
    `user + system CPU of every process in the level's window, per turn that ended in it: durable ${parts(d)}; ` +
      `in-process ${parts(p)} (the client is this process: the gateway or the in-process turns, and the scripted ` +
      `LLM and tool servers)`,
  ];
}

export async function throughputRows(stack: BenchStack): Promise<Row[]> {
  const durableRates: string[] = [];
  const inProcessRates: string[] = [];
  const notes: string[] = [];
  let bound: Row | undefined;
  let offScript = 0;
  for (const concurrency of LEVELS) {
    const load: SustainedLoad = { concurrency, warmMs: WARM_MS, windowMs: WINDOW_MS, cpu: () => stackCpuMs(stack) };
    const d = await sustainedRun(durable(stack), load);
    const p = await sustainedRun(inProcess(stack), load);
    durableRates.push(d.turnsPerSecond.toFixed(1));
    inProcessRates.push(p.turnsPerSecond.toFixed(1));
    const p95 = percentile(
      d.counted.map((s) => s.ms),
      95
    );
    notes.push(`${concurrency}: ${d.counted.length} turns (p95 ${ms(p95)})`);
    offScript += d.offScript + p.offScript;
    bound = cpuBoundRow(d, p, concurrency);
  }
  const burst = await burstRates(stack);
  offScript += burst.offScript;
  const window = `turns that ended in a ${WINDOW_MS / 1000} s window after ${WARM_MS / 1000} s of load`;
  const burstNote = (rate: number) =>
    `a burst of ${BURST.conversations} conversations started at once, timed until the last ended: ${rate.toFixed(1)} turns/s`;
  return [
    [
      'Turns/s at concurrency 1 / 8 / 32 — durable',
      durableRates.join(' / '),
      `sustained: that many conversations of the demo mix at a time, a new one as each ends; ${window}: ` +
        `${notes.join(', ')}; ${burstNote(burst.durable)}; ${offScript} replies off-script`,
    ],
    [
      'Turns/s at concurrency 1 / 8 / 32 — in-process',
      inProcessRates.join(' / '),
      `same conversations, same database, same window; ${burstNote(burst.inProcess)}`,
    ],
    ...(bound ? [bound] : []),
  ];
}
