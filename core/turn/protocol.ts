import type { RecordedDecision, StepInput, StepOutput, StepReply, StepTiming, TurnDecisionRecord } from './contracts';
import { fromStepResult, isStepResult } from './step-result';

/** The step whose input carries the turn's step timings (StepInput.stepTimings). */
const READS_TIMINGS = 'PipelineEnd';

/** `step → durationMs` (PIPELINE_TIMING's `steps`), a step that ran more than once summed. */
export function timingsByStep(timings: readonly StepTiming[]): Record<string, number> {
  const steps: Record<string, number> = {};
  for (const { step, durationMs } of timings) steps[step] = (steps[step] ?? 0) + durationMs;
  return steps;
}

/**
 * The conversationTurnV2 call protocol, shared by the workflow and the in-process runner so both
 * send the same inputs: every step input asks for a patch (`reply: 'patch'`), and the driver's
 * decisions ride on the next step input, which writes them as TURN_DECISION rows (no extra round
 * trip). The commit steps always run, so a decision never waits forever.
 */
export class StepCalls {
  private pending: RecordedDecision[] = [];
  private seq = 0;
  private readonly timings: StepTiming[] = [];

  record(decision: TurnDecisionRecord): void {
    this.seq += 1;
    this.pending.push({ seq: this.seq, decision });
  }

  /** Decisions recorded so far in this turn. */
  get decisions(): number {
    return this.seq;
  }

  /**
   * The input of the activity that runs `steps` (the step, or the steps of a run it leads).
   * `stepInfos` (which steps ran) stays with the workflow: no step reads it, so it does not travel.
   * The step timings travel only to the activity that runs PipelineEnd, which reads them.
   */
  input<I extends StepInput>(input: I, steps: readonly { name: string }[] = []): I {
    const call: I = { ...input, session: { ...input.session, stepInfos: {} }, reply: 'patch' };
    if (steps.some((step) => step.name === READS_TIMINGS)) call.stepTimings = [...this.timings];
    if (this.pending.length > 0) {
      call.decisions = this.pending;
      this.pending = [];
    }
    return call;
  }

  /** The step's answer applied to the session it was given (the full one, not the call's copy). */
  output<O extends StepOutput>(name: string, sent: StepInput, reply: StepReply<O>): O {
    if (isStepResult(reply) && reply.durationMs !== undefined) {
      this.timings.push({ step: name, durationMs: reply.durationMs });
    }
    const out = fromStepResult(sent.session, reply);
    out.session.stepInfos = { ...sent.session.stepInfos, [name]: 'SUCCESS' };
    return out;
  }
}
