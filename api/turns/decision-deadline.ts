import * as grpc from '@grpc/grpc-js';
import { answerWithin } from '../../observability/dependency-checks';

/** A Temporal call the decision's deadline gave up on: DEADLINE_EXCEEDED, which isTemporalUnreachable reads so. */
export class DecisionDeadlineError extends Error {
  readonly code = grpc.status.DEADLINE_EXCEEDED;
  constructor(timeoutMs: number) {
    super(`Temporal did not answer within the decision's ${timeoutMs} ms`);
    this.name = 'DecisionDeadlineError';
  }
}

/** What cancels the Temporal calls made in `fn` when `signal` aborts: a Client, or its connection. */
export interface CancellableCalls {
  withAbortSignal<R>(signal: AbortSignal, fn: () => Promise<R>): Promise<R>;
}

/** The most the reads that say why a sent decision was refused may take, after the update answered. */
export const REFUSAL_READS_MS = 5_000;

/**
 * The one deadline of an operator's decision (OPERATOR_DECISION_TIMEOUT_MS from when the decision began: after the
 * request's authentication, prerequisite checks and body were read), shared by every Temporal call the decision makes
 * up to its update: the turn's describe, its history, its task queue's pollers, the update. The reads that say why
 * Temporal refused the update have one of their own (forRefusalReads). Each call also keeps its own deadline
 * (TEMPORAL_CALL_TIMEOUT_MS, a check's): without this one, a Temporal answering each just in time held the request
 * for their sum.
 */
export class DecisionDeadline {
  readonly at: number;

  constructor(
    readonly timeoutMs: number,
    private readonly calls: CancellableCalls,
    now = Date.now()
  ) {
    this.at = now + timeoutMs;
  }

  /**
   * A deadline of its own, at most REFUSAL_READS_MS (and this one's length), for the reads that say why Temporal
   * refused the sent decision: the update's wait may have taken nearly all of this one, and a turn that ended just
   * before it is then told as ended (409), not as a Temporal that did not answer (503).
   */
  forRefusalReads(): DecisionDeadline {
    return new DecisionDeadline(Math.min(this.timeoutMs, REFUSAL_READS_MS), this.calls);
  }

  /**
   * `call`, given up at the deadline (DecisionDeadlineError): not sent once it has passed. The Temporal calls it
   * made and that still run then are cancelled (on the client's connection; a worker's native one does not cancel,
   * and ends them on their own deadline): a request answered at its deadline leaves no call of its own behind. Only
   * reads and the update, whose caller is told it may still apply, are given up on.
   */
  within<T>(call: () => Promise<T>): Promise<T> {
    const left = this.at - Date.now();
    if (left <= 0) return Promise.reject(new DecisionDeadlineError(this.timeoutMs));
    const cutOff = new AbortController();
    const timedOut = () => {
      cutOff.abort();
      return new DecisionDeadlineError(this.timeoutMs);
    };
    // Called in a reaction, so a call that throws at once rejects the race, which clears the timer.
    const running = Promise.resolve().then(() => this.calls.withAbortSignal(cutOff.signal, call));
    return answerWithin(running, timedOut, left);
  }
}
