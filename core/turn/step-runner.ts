import type { StepInput, StepReply } from './contracts';
import {
  handOverSummary,
  isMcpUnit,
  regularRunSummary,
  runSummary,
  stepRunFrom,
  stepRunInput,
  StepRunResults,
  type PlannedStep,
  type RunAnswer,
  type RunStepName,
  type StepRunInput,
  type StepRunResult,
} from './step-runs';

/** Builds the input of the activity that runs `steps`: one step, or a run it leads. */
export type StepCall = (steps: readonly PlannedStep[]) => StepInput;

/** Which step runs a turn has: wide ones, of the pipeline's local steps only, or none (older histories). */
export type StepRunsIn = 'wide' | 'pipeline' | null;

export type StepRunKind = 'local' | 'regular';

/** A local attempt's outcome: the step's reply, or why it must run as a regular activity (it wrote nothing). */
export type LocalAttemptOutcome = { reply: StepReply } | { handOver: string };

/**
 * What the step runner asks of an executor: the workflow schedules activities (and asks its
 * patches), the in-process runner calls the same activity functions directly.
 */
export interface StepRunPort {
  /** Which step runs this turn has. The workflow asks its patches here, before it plans any run. */
  runsIn(): StepRunsIn;
  /** Whether the step is attempted locally: local, or local first in a turn that tries it so. */
  runsLocally(name: RunStepName): boolean;
  /** The planned steps as one activity: LocalSteps, or RegularSteps with the lead step's retry policy. */
  runSteps(kind: StepRunKind, input: StepRunInput, summary: string): Promise<StepRunResult>;
  /** One step as a local attempt. */
  attemptLocally(name: RunStepName, call: StepInput, summary: string): Promise<LocalAttemptOutcome>;
  /** One step as a regular activity of its own. */
  runRegularly(name: RunStepName, call: StepInput, summary: string): Promise<StepReply>;
}

/**
 * Decides how each step the driver asks for runs (core/turn/step-runs.ts), the same for both
 * executors: answered from a run that already ran it; or it leads a run of its own, local when it
 * runs locally, regular when it does not or was handed over; or it runs alone, a local one as a
 * local attempt that hands the LLM and consumer code over to a regular activity.
 */
export class StepRunner {
  private readonly results = new StepRunResults();

  constructor(private readonly port: StepRunPort) {}

  /** The answer a run already holds for this step, taken once; null when no run covered it. */
  take(step: PlannedStep): RunAnswer | null {
    return this.results.take(step);
  }

  /**
   * The step's reply. `taken`: what `take` gave for it. `call` builds the input of the activity that
   * runs `steps` as the executor sends it (with the driver's pending decisions), once per activity call.
   */
  async run(
    step: PlannedStep,
    call: StepCall,
    next: readonly PlannedStep[],
    summary: string,
    taken: RunAnswer | null
  ): Promise<StepReply> {
    let answer = taken;
    const local = answer === null && this.port.runsLocally(step.name);
    const planned = local ? this.plan(step, next, 'local') : null;
    if (planned) {
      await this.hold('local', stepRunInput(planned, call(planned)), runSummary(planned));
      answer = this.results.take(step);
    }
    if (answer?.kind === 'ran') return answer.result;
    if (answer?.kind === 'handedOver') {
      const { carried } = answer;
      const handOver = handOverSummary(summary, step.name, answer.reason);
      return this.regular(step, (steps) => ({ ...call(steps), ...carried }), next, handOver);
    }
    if (!local) return this.regular(step, call, next, summary);
    const input = call([step]);
    const attempt = await this.port.attemptLocally(step.name, input, summary);
    if ('reply' in attempt) return attempt.reply;
    // The same call (key, decisions) goes regular. A local-first step never leads a run up to
    // PipelineEnd (the commit, a regular step, comes between), so `input` lacks nothing it needs.
    return this.regular(step, () => input, next, handOverSummary(summary, step.name, attempt.handOver));
  }

  /** The step as a regular activity: leading a RegularSteps run when local steps follow it, else alone. */
  private async regular(
    step: PlannedStep,
    call: StepCall,
    next: readonly PlannedStep[],
    summary: string
  ): Promise<StepReply> {
    const planned = this.plan(step, next, 'regular');
    if (!planned) return this.port.runRegularly(step.name, call([step]), summary);
    await this.hold('regular', stepRunInput(planned, call(planned)), regularRunSummary(summary, planned));
    const answer = this.results.take(step);
    if (answer?.kind !== 'ran') throw new Error(`step run led by ${step.callKey} did not run its lead`);
    return answer.result;
  }

  private async hold(kind: StepRunKind, input: StepRunInput, summary: string): Promise<void> {
    this.results.hold(await this.port.runSteps(kind, input, summary), input);
  }

  /**
   * The run `step` would lead as an activity of `kind`: two or more steps, else null. Older
   * histories have no regular runs and no MCP units in local runs, and runsIn() is asked first, so
   * they replay with the very commands they recorded.
   */
  private plan(step: PlannedStep, next: readonly PlannedStep[], kind: StepRunKind): PlannedStep[] | null {
    const runs = this.port.runsIn();
    if (runs === null || (kind === 'regular' && runs !== 'wide')) return null;
    const joins = (name: RunStepName) => (runs === 'wide' || !isMcpUnit(name)) && this.port.runsLocally(name);
    if (kind === 'local' && !joins(step.name)) return null;
    const run = stepRunFrom(step, next, joins);
    return run.length > 1 ? run : null;
  }
}
