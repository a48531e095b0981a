/**
 * Temporal's clock, as this process can tell it from the task queue pollers DescribeTaskQueue lists. A poller's
 * lastAccessTime is stamped by Temporal's server, and Temporal's API has no call that answers the server's time, so
 * comparing it with this host's clock (as a poller's age) is off by the two clocks' skew: a clock 90 s ahead takes
 * every worker for gone, one behind keeps a gone worker for live.
 *
 * What the replies prove bounds the server's clock instead, each bound kept on this process's monotonic clock (which
 * no NTP step moves), so it holds for later reads:
 * - a listed access happened before the reply came back: the server's clock is at least that access plus the time
 *   since (the lower bound);
 * - an access that a poller made since this process's previous read of the same queue (its lastAccessTime grew)
 *   happened after that read was sent: the server's clock is at most that access plus the time since the previous
 *   read was sent (the upper bound). An idle worker polls again each time its long poll ends (a minute), so with
 *   readiness probed every few seconds the bound is within a probe's interval of the server's clock.
 * The server's time is then this host's clock, kept within the bounds: unchanged while the clocks agree, the
 * server's while they do not. Until a poll has been seen to happen (for up to a minute after the process starts) the
 * upper bound is unknown, and a clock ahead still reads workers as gone. Bounds that contradict each other (a clock
 * was stepped) are learned again from the newest reply.
 */

/** This host's clocks: the wall clock (epoch ms), and a monotonic one in ms from any origin. */
export interface LocalClocks {
  wallMs(): number;
  monotonicMs(): number;
}

const systemClocks: LocalClocks = { wallMs: () => Date.now(), monotonicMs: () => performance.now() };

/** Skew below this is not worth a warning: what NTP keeps hosts within, many times over. */
export const CLOCK_SKEW_WARN_MS = 5_000;

/** One DescribeTaskQueue reply: its pollers' last accesses (server epoch ms) by identity, and when it was asked. */
export interface PollerReading {
  queue: string;
  accesses: ReadonlyMap<string, number>;
  /** Monotonic ms when the request was sent, and when its reply came back. */
  sentAt: number;
  receivedAt: number;
}

export class TemporalClock {
  /** Bounds of the server's clock less this process's monotonic clock; undefined while nothing proved one. */
  private lowest: number | undefined;
  private highest: number | undefined;
  private readonly previous = new Map<string, PollerReading>();

  constructor(readonly local: LocalClocks = systemClocks) {}

  /** Learns the bounds a reply proves (above). */
  observe(reading: PollerReading): void {
    const before = this.previous.get(reading.queue);
    this.previous.set(reading.queue, reading);
    let low: number | undefined;
    let high: number | undefined;
    for (const [identity, access] of reading.accesses) {
      low = Math.max(low ?? -Infinity, access - reading.receivedAt);
      const earlier = before?.accesses.get(identity);
      if (before && earlier !== undefined && access > earlier) {
        high = Math.min(high ?? Infinity, access - before.sentAt);
      }
    }
    const lowest = Math.max(this.lowest ?? -Infinity, low ?? -Infinity);
    const highest = Math.min(this.highest ?? Infinity, high ?? Infinity);
    if (lowest > highest) {
      // A clock was stepped: what this reply proves alone stands.
      [this.lowest, this.highest] = [low, (low ?? -Infinity) > (high ?? Infinity) ? undefined : high];
      return;
    }
    this.lowest = Number.isFinite(lowest) ? lowest : undefined;
    this.highest = Number.isFinite(highest) ? highest : undefined;
  }

  /** Whether a poll seen to happen bounds the server's clock from above (a clock ahead of it is then told). */
  get boundedAbove(): boolean {
    return this.highest !== undefined;
  }

  /** The server's time now (epoch ms): this host's clock within the proven bounds. */
  now(): number {
    const at = this.local.monotonicMs();
    let now = this.local.wallMs();
    if (this.lowest !== undefined) now = Math.max(now, this.lowest + at);
    if (this.highest !== undefined) now = Math.min(now, this.highest + at);
    return now;
  }

  /**
   * A warning while this host's clock is proven off the server's by more than CLOCK_SKEW_WARN_MS: the skew is at
   * least what it says.
   */
  skewWarning(): string | undefined {
    const skew = this.local.wallMs() - this.now();
    if (Math.abs(skew) <= CLOCK_SKEW_WARN_MS) return undefined;
    const seconds = Math.round(Math.abs(skew) / 1000);
    return (
      `this host's clock is at least ${seconds} s ${skew > 0 ? 'ahead of' : 'behind'} Temporal's: ` +
      "workers are judged by Temporal's clock, but keep the hosts on NTP (docs/operations.md, Clocks)"
    );
  }
}

/** The process's estimate: readiness and the decisions' gate read the same queue, and learn from each other's reads. */
export const temporalClock = new TemporalClock();
