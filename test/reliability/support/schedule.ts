import type { TrafficMonitor } from './traffic';

/**
 * Fires a fault each time the number of completed turns passes one of `thresholds` (drawn from the
 * seeded PRNG). Faults run one after another — the next waits until the last one has recovered
 * (a replacement worker is up, the server is back) — and each records how many turns were in
 * flight when it struck, which is what makes it a mid-turn fault.
 */
export class FaultSchedule {
  readonly inFlightAtFault: number[] = [];
  private chain: Promise<void> = Promise.resolve();
  private fired = 0;

  constructor(
    readonly thresholds: readonly number[],
    private readonly monitor: TrafficMonitor,
    private readonly fault: () => Promise<void>,
    private readonly delayMs: () => number
  ) {}

  get done(): number {
    return this.inFlightAtFault.length;
  }

  /** Call after every completed turn. */
  onProgress(completedTurns: number): void {
    while (this.fired < this.thresholds.length && (this.thresholds[this.fired] ?? Infinity) <= completedTurns) {
      this.fired += 1;
      this.chain = this.chain.then(() => this.fire());
    }
  }

  private async fire(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs()));
    this.inFlightAtFault.push(this.monitor.inFlight);
    await this.fault();
  }

  /** Resolves when every fault fired so far has run (and recovered). */
  drain(): Promise<void> {
    return this.chain;
  }
}
