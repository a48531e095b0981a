/**
 * A fault schedule for the scripted server, applied before the script: "every Nth request of call
 * kind K answers with an error status / arrives late / is not JSON". The request after a fault is
 * answered from the script as usual, so a client that retries gets the recorded answer — the
 * schedule tests the retries, not the recordings. Counting is per rule, by arrival order.
 */
export type LlmFault =
  /** An HTTP error (429, 529, 500, ...). */
  | { status: number; message?: string }
  /** The scripted answer, sent only after this long (beyond the client timeout = a timeout). */
  | { delayMs: number }
  /** A 200 completion whose text is this (non-JSON prose for a JSON call). */
  | { text: string };

export interface LlmFaultRule {
  /** Call kind it counts and applies to; every kind when absent. */
  kind?: string;
  /** Only requests whose system prompt + user text contain this (substring or RegExp) count. */
  match?: string | RegExp;
  /** Requests every, 2·every, 3·every, ... (1-based, per rule) get the fault. */
  every: number;
  /** Consecutive requests faulted from each of those points (default 1): more than the SDK's retries. */
  burst?: number;
  /** Stop after this many injected faults (default: no limit). */
  limit?: number;
  fault: LlmFault;
  /** Reported by injectedFaults(); default `<kind> <fault>`. */
  label?: string;
}

export interface FaultDecision {
  label: string;
  fault: LlmFault;
}

interface LiveRule {
  rule: LlmFaultRule;
  label: string;
  seen: number;
  injected: number;
}

function describeFault(fault: LlmFault): string {
  if ('status' in fault) return `status ${fault.status}`;
  if ('delayMs' in fault) return `delay ${fault.delayMs} ms`;
  return 'non-JSON text';
}

function matches(matcher: LlmFaultRule['match'], text: string): boolean {
  if (matcher === undefined) return true;
  if (typeof matcher === 'string') return text.includes(matcher);
  matcher.lastIndex = 0;
  return matcher.test(text);
}

export class FaultSchedule {
  private rules: LiveRule[] = [];

  set(rules: readonly LlmFaultRule[]): void {
    this.rules = rules.map((rule) => {
      if (!Number.isInteger(rule.every) || rule.every < 1) throw new Error('fault rule: every must be ≥ 1');
      // A burst as long as the period would fault every request from the first point on.
      if ((rule.burst ?? 1) >= rule.every && rule.every > 1) throw new Error('fault rule: burst must be < every');
      const label = rule.label ?? `${rule.kind ?? 'any'} ${describeFault(rule.fault)}`;
      return { rule, label, seen: 0, injected: 0 };
    });
  }

  /** Counts the request against every rule it fits; the first rule due answers it. */
  next(kind: string | null, promptText: string): FaultDecision | null {
    let decision: FaultDecision | null = null;
    for (const live of this.rules) {
      if (live.rule.kind !== undefined && live.rule.kind !== kind) continue;
      if (!matches(live.rule.match, promptText)) continue;
      live.seen += 1;
      const { every, burst = 1, limit = Infinity } = live.rule;
      const due = live.seen >= every && (live.seen - every) % every < burst;
      if (decision || !due || live.injected >= limit) continue;
      live.injected += 1;
      decision = { label: live.label, fault: live.rule.fault };
    }
    return decision;
  }

  /** Faults injected so far, by rule label. */
  injected(): Record<string, number> {
    return Object.fromEntries(this.rules.map((r) => [r.label, r.injected]));
  }
}
