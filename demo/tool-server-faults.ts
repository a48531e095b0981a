import type http from 'node:http';
import { pushKeepingLatest } from '../core/bounded-list';

/**
 * Fault injection and request accounting for the demo tool server. A fault is set per route:
 * - `failTimes` + `status`: the next N requests answer `status` (default 503), with a `Retry-After` of `retryAfter`
 *   when set (an upstream asking the caller to wait);
 * - `delayMs`: every answer waits this long (longer than a tool's read timeout = a timeout);
 * - `flap`: requests alternate between failing with `status` and succeeding;
 * - `applyThenTimeout`: the next N write requests are applied, then answered after `delayMs`
 *   (the client times out although the write happened — the idempotency case).
 */
export interface RouteFault {
  failTimes?: number;
  status?: number;
  retryAfter?: string;
  delayMs?: number;
  flap?: boolean;
  applyThenTimeout?: { times: number; delayMs: number };
}

export interface FaultDecision {
  failWith: number | null;
  delayMs: number;
  retryAfter?: string;
}

interface FaultState extends RouteFault {
  seen: number;
}

export class FaultRegistry {
  private readonly routes = new Map<string, FaultState>();

  set(route: string, fault: RouteFault): void {
    this.routes.set(route, { ...fault, seen: 0 });
  }

  clear(route?: string): void {
    if (route === undefined) this.routes.clear();
    else this.routes.delete(route);
  }

  /** What the next request on `route` gets; advances the route's fault counters. */
  next(route: string): FaultDecision {
    const fault = this.routes.get(route);
    if (!fault) return { failWith: null, delayMs: 0 };
    fault.seen += 1;
    const status = fault.status ?? 503;
    if (fault.failTimes !== undefined && fault.seen <= fault.failTimes) {
      const failed = { failWith: status, delayMs: fault.delayMs ?? 0 };
      return fault.retryAfter === undefined ? failed : { ...failed, retryAfter: fault.retryAfter };
    }
    if (fault.flap) return { failWith: fault.seen % 2 === 1 ? status : null, delayMs: fault.delayMs ?? 0 };
    const late = fault.applyThenTimeout;
    if (late && fault.seen <= late.times) return { failWith: null, delayMs: late.delayMs };
    return { failWith: null, delayMs: fault.delayMs ?? 0 };
  }
}

export interface LoggedRequest {
  route: string;
  method: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * Write keys remembered for exactly-once, oldest forgotten first: like a real service's idempotency window, so a
 * long-running server (`convengine start`'s) does not keep one per submitted application for ever. A retry of a
 * write comes within seconds, thousands of writes before its key would be forgotten.
 */
export const REMEMBERED_WRITE_KEYS = 10_000;

export class DemoCounters {
  /** The requests received: every one, or the latest `keptRequests` (see DemoToolServerOptions). */
  readonly log: LoggedRequest[] = [];
  private readonly writes = new Map<string, number>();
  /**
   * The sequence numbers (see `received`) of the requests whose client closed the connection before the answer was
   * sent, by route: a test counts the hang-ups of its own calls, not those of an earlier test's that come late.
   */
  private readonly hangUps = new Map<string, number[]>();
  /** How many requests came so far: the last one's sequence number. */
  private receivedCount = 0;

  constructor(private readonly keptRequests?: number) {}

  record(
    route: string,
    method: string,
    query: Record<string, string>,
    headers: http.IncomingHttpHeaders,
    body: string
  ): number {
    pushKeepingLatest(this.log, { route, method, query, headers, body }, this.keptRequests);
    this.receivedCount += 1;
    return this.receivedCount;
  }

  /** How many requests came so far (every one, whatever the log keeps): the next one's sequence number is one more. */
  received(): number {
    return this.receivedCount;
  }

  /** Requests received on a route (failed and retried ones included), of those the log keeps. */
  requests(route: string): number {
    return this.log.filter((r) => r.route === route).length;
  }

  hungUp(route: string, seq: number): void {
    this.hangUps.set(route, [...(this.hangUps.get(route) ?? []), seq]);
  }

  /**
   * Requests on a route whose client hung up before it was answered (a cancelled or timed-out call); with `since` (a
   * `received()` count), only of the requests that came after it.
   */
  hangUpsOn(route: string, since = 0): number {
    return (this.hangUps.get(route) ?? []).filter((seq) => seq > since).length;
  }

  wasApplied(key: string): boolean {
    return (this.writes.get(key) ?? 0) > 0;
  }

  applyWrite(key: string): void {
    const effects = (this.writes.get(key) ?? 0) + 1;
    this.writes.delete(key);
    this.writes.set(key, effects);
    if (this.writes.size > REMEMBERED_WRITE_KEYS) this.writes.delete(this.writes.keys().next().value as string);
  }

  /** How many times a write with this Idempotency-Key took effect (1 means exactly once). */
  writeEffects(key: string): number {
    return this.writes.get(key) ?? 0;
  }

  totalWriteEffects(): number {
    return [...this.writes.values()].reduce((a, b) => a + b, 0);
  }

  reset(): void {
    this.log.length = 0;
    this.writes.clear();
    this.hangUps.clear();
  }
}
