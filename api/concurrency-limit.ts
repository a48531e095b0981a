import type { FastifyReply } from 'fastify';
import { errorResponse, retryAfterHeader } from './error-responses';
import { ApiError } from './errors';

/** Where a limit reports its use (observability/metrics.ts: convengine_api_limit_in_use, …_refused_total). */
export interface LimitMetrics {
  inUse: { set(labels: { limit: string }, value: number): void };
  refused: { inc(labels: { limit: string }, value?: number): void };
}

export interface LimitRefusal {
  /**
   * 429 (default): this client has enough open; 503: this process has enough of everyone's, and the connection is
   * closed with the answer, so its descriptor is freed now and the retry may reach another process.
   */
  status?: 429 | 503;
  /** The envelope's code on the refusal. */
  code: string;
  /** The envelope's message, from how many run now and the most allowed. */
  message(running: number, max: number): string;
  /** Seconds the refused client is told to wait (Retry-After). */
  retryAfterSeconds: number;
}

/**
 * At most `max` of a kind of request at once in this process; one more gets 429 (or 503) with Retry-After, before
 * it does any work. For routes whose requests hold a pooled connection or CPU for long (what-if replays,
 * audit streams), so they cannot take what end users' turns need, and for turns themselves, each holding a socket
 * (config/open-files.ts).
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

  /** Runs `work` in a slot, freed however it ends; throws the refusal when every slot is taken. */
  async run<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) {
      const { status = 429, code, retryAfterSeconds } = this.refusal;
      this.metrics?.refused.inc({ limit: this.name });
      reply.header('retry-after', String(retryAfterSeconds));
      if (status === 503) reply.header('connection', 'close');
      throw new ApiError(status, code, this.refusal.message(this.running, this.max));
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

/**
 * A 429 refusal as its route documents it: `when` says when it comes, and `Retry-After` always does. A 503 refusal
 * (TOO_MANY_MESSAGES) is one line of its route's 503, whose `Retry-After` names it.
 */
export function busyResponse(refusal: LimitRefusal, when: string) {
  const wait = `always, ${refusal.retryAfterSeconds} with ${refusal.code}`;
  const response = { ...errorResponse(`${refusal.code}: ${when}`), headers: retryAfterHeader(wait, true) };
  return { [refusal.status ?? 429]: response };
}
