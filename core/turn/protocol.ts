import type { RecordedDecision, StepInput, TurnDecisionRecord } from './contracts';

/**
 * The conversationTurnV2 call protocol, shared by the workflow and the in-process runner so both
 * send the same inputs: every step input asks for a patch (`reply: 'patch'`), and the driver's
 * decisions ride on the next step input, which writes them as TURN_DECISION rows (no extra round
 * trip). The commit steps always run, so a decision never waits forever.
 */
export class StepCalls {
  private pending: RecordedDecision[] = [];
  private seq = 0;

  record(decision: TurnDecisionRecord): void {
    this.seq += 1;
    this.pending.push({ seq: this.seq, decision });
  }

  /** Decisions recorded so far in this turn. */
  get decisions(): number {
    return this.seq;
  }

  input<I extends StepInput>(input: I): I {
    const call: I = { ...input, reply: 'patch' };
    if (this.pending.length > 0) {
      call.decisions = this.pending;
      this.pending = [];
    }
    return call;
  }
}
