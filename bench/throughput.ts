import { cpus } from 'node:os';
import type { Row } from './table';
import type { BenchStack } from './stack';
import {
  demoMix,
  durable,
  formatMs as ms,
  inProcess,
  offScriptCount,
  percentile,
  runMix,
  SECTION_LIMIT_MS,
  stackCpuMs,
  turnsOf,
  type StackCpu,
  type Transport,
} from './turns';

/** Concurrent conversations of the demo mix, durable and in-process, at three levels. */
const THROUGHPUT = [
  { concurrency: 1, conversations: 4 },
  { concurrency: 8, conversations: 16 },
  { concurrency: 32, conversations: 32 },
];

/** One throughput level on one side: its rate, and the CPU per turn of every process while it ran. */
async function throughputRun(stack: BenchStack, send: Transport, conversations: number, concurrency: number) {
  const before = stackCpuMs(stack);
  const run = await runMix(demoMix(conversations), send, concurrency, Date.now() + SECTION_LIMIT_MS);
  const after = stackCpuMs(stack);
  const turns = Math.max(1, run.samples.length);
  const perTurn = Object.fromEntries(
    Object.entries(after).map(([name, cpu]) => [name, (cpu - before[name as keyof StackCpu]) / turns])
  ) as StackCpu;
  return { ...run, perTurn, totalPerTurn: Object.values(perTurn).reduce((sum, v) => sum + v, 0) };
}

type ThroughputRun = Awaited<ReturnType<typeof throughputRun>>;

/** What the machine's cores allow at the highest level: CPU per turn across every process, and the rate it bounds. */
function cpuBoundRow(d: ThroughputRun, p: ThroughputRun, concurrency: number): Row {
  const cores = cpus().length;
  const bound = (r: ThroughputRun) => `${((cores * 1000) / r.totalPerTurn).toFixed(1)} turns/s`;
  const parts = (r: ThroughputRun) =>
    `worker ${ms(r.perTurn.worker)}, server ${ms(r.perTurn.server)}, client ${ms(r.perTurn.client)}, PostgreSQL ${ms(r.perTurn.postgres)}`;
  return [
    `CPU per turn at concurrency ${concurrency}, every process → the rate ${cores} cores allow`,
    `durable ${ms(d.totalPerTurn)} → ${bound(d)}; in-process ${ms(p.totalPerTurn)} → ${bound(p)}`,
    `user + system CPU of every process while the level ran, per turn: durable ${parts(d)}; in-process ${parts(p)} ` +
      `(the client is this process: the gateway or the in-process turns, and the scripted LLM and tool servers)`,
  ];
}

export async function throughputRows(stack: BenchStack): Promise<Row[]> {
  const durableRates: string[] = [];
  const inProcessRates: string[] = [];
  const notes: string[] = [];
  let bound: Row | undefined;
  let offScript = 0;
  for (const level of THROUGHPUT) {
    const d = await throughputRun(stack, durable(stack), level.conversations, level.concurrency);
    const p = await throughputRun(stack, inProcess(stack), level.conversations, level.concurrency);
    durableRates.push((d.samples.length / d.seconds).toFixed(1));
    inProcessRates.push((p.samples.length / p.seconds).toFixed(1));
    const p95 = percentile(
      d.samples.map((s) => s.ms),
      95
    );
    notes.push(`${level.concurrency}: ${d.samples.length} turns (p95 ${ms(p95)})`);
    offScript += offScriptCount(d.samples) + offScriptCount(p.samples);
    if (d.samples.length < turnsOf(demoMix(level.conversations))) {
      notes.push(`(${level.concurrency}: stopped at the time limit)`);
    }
    bound = cpuBoundRow(d, p, level.concurrency);
  }
  return [
    [
      'Turns/s at concurrency 1 / 8 / 32 — durable',
      durableRates.join(' / '),
      `concurrent conversations of the demo mix; ${notes.join(', ')}; ${offScript} replies off-script`,
    ],
    ['Turns/s at concurrency 1 / 8 / 32 — in-process', inProcessRates.join(' / '), 'same conversations, same database'],
    ...(bound ? [bound] : []),
  ];
}
