/**
 * How many of the console's database reads run at once in an API process. The API's pool (db/pool.ts) holds 10
 * connections for everyone; operators' pages (a long conversation, a live page re-read every 3 s, many tabs) must
 * never take the ones end users' turns need, so console reads queue behind this many, as what-if replays are bounded
 * by WHATIF_CONCURRENCY (docs/whatif.md).
 */
export const CONSOLE_READ_CONCURRENCY = 2;

/** Runs work with at most `max` at once; the rest wait their turn in order (a page waits, it is not refused). */
export class ReadBudget {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      // The slot goes straight to the next waiter, so a newcomer cannot overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
