import pg from 'pg';
import type { Row } from './table';
import { demoMix, inProcess, runMix } from './turns';
import type { BenchStack } from './stack';

const CONVERSATIONS = 10;

type Query = (...args: unknown[]) => unknown;

/** A statement's name: its prepared-statement name, else its first words (a transaction command, a tool's SQL). */
function statementName(query: unknown): string {
  const config = query as { name?: unknown; text?: unknown } | string | null;
  if (typeof config === 'object' && config !== null && typeof config.name === 'string') return config.name;
  const text = typeof config === 'string' ? config : typeof config?.text === 'string' ? config.text : '';
  return (
    text
      .trim()
      .split(/[\s(]+/)
      .slice(0, 2)
      .join(' ') || '(no text)'
  );
}

/**
 * Every statement this process sends to PostgreSQL while `work` runs, by name. pg has no per-query
 * hook, so `Client.prototype.query` is wrapped for the measurement and put back after it.
 */
export async function countStatements(work: () => Promise<unknown>): Promise<Map<string, number>> {
  const proto = pg.Client.prototype as unknown as { query: Query };
  const original = proto.query;
  const counts = new Map<string, number>();
  proto.query = function (this: unknown, ...args: unknown[]) {
    const name = statementName(args[0]);
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    proto.query = original;
  }
  return counts;
}

/**
 * Database round trips per turn: the in-process demo turns, one at a time, through the same activity
 * functions the worker runs (the durable turn sends the same statements from the worker, and the
 * gateway's turn-count read from the client). Counts, not times: a regression shows on any machine.
 */
export async function statementRows(stack: BenchStack): Promise<Row[]> {
  let turns = 0;
  const counts = await countStatements(async () => {
    const { samples } = await runMix(demoMix(CONVERSATIONS), inProcess(stack), 1, Date.now() + 120_000);
    turns = Math.max(1, samples.length);
  });
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const perTurn = (n: number) => (n / turns).toFixed(1);
  const named = [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${perTurn(n)}`)
    .join(', ');
  return [
    [
      'Database statements per turn',
      perTurn(total),
      `${turns} in-process demo turns, one at a time (the durable turn sends the same from its worker): ${named}`,
    ],
  ];
}
