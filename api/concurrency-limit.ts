import type { FastifyReply } from 'fastify';
import { ApiError } from './errors';

/** Where a limit reports its use (observability/metrics.ts: convengine_api_limit_in_use, …_refused_total). */
export interface LimitMetrics {
  inUse: { set(labels: { limit: string }, value: number): void };
  refused: { inc(labels: { limit: string }): void };
}

export interface LimitRefusal {
  /** The envelope's code on the 429. */
  code: string;
  /** The envelope's message, from how many run now and the most allowed. */
  message(running: number, max: number): string;
  /** Seconds the refused client is told to wait (Retry-After). */
  retryAfterSeconds: number;
}

/**
 * At most `max` of a kind of request at once in this process; one more gets 429 with Retry-After, before
 * it does any work. For routes whose requests hold a pooled connection or CPU for long (what-if replays,
 * audit streams), so they cannot take what end users' turns need.
 */
export class ConcurrencyLimit {
  private running = 0;

  /** `name` labels the limit's metrics (e.g. `audit_streams`), so operators see how close to `max` it runs. */
  constructor(
    private readonly name: string,
    private readonly max: number,
    private readonly refusal: LimitRefusal,
    private readonly metrics?: LimitMetrics
  ) {
    metrics?.inUse.set({ limit: name }, 0);
  }

  /** Runs `work` in a slot, freed however it ends; throws the 429 when every slot is taken. */
  async run<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) {
      this.metrics?.refused.inc({ limit: this.name });
      reply.header('retry-after', String(this.refusal.retryAfterSeconds));
      throw new ApiError(429, this.refusal.code, this.refusal.message(this.running, this.max));
    }
    this.setRunning(this.running + 1);
    try {
      return await work();
    } finally {
      this.setRunning(this.running - 1);
    }
  }

  private setRunning(running: number): void {
    this.running = running;
    this.metrics?.inUse.set({ limit: this.name }, running);
  }
}
