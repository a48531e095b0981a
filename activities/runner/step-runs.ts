import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../core/errors';
import type { TurnActivities } from '../../core/turn/activities';
import type { StepInput, StepOutput, StepReply, StepResult } from '../../core/turn/contracts';
import type { StepCalls } from '../../core/turn/protocol';
import {
  joinsStepRuns,
  stepRunFrom,
  stepRunInput,
  StepRunResults,
  type PlannedStep,
  type RunStepName,
  type StepRunType,
} from '../../core/turn/step-runs';
import { STEP_TABLE, type StepName } from '../../core/turn/steps';
import { asLocalAttempt } from '../runtime/local-attempt';

type Activity<O extends StepOutput> = (input: StepInput) => Promise<StepReply<O>>;

export interface InProcessStepRunsDeps {
  activities: TurnActivities;
  calls: StepCalls;
  /**
   * Calls the activity `type` with the runner's retries: the step table's count for `policy` (a
   * RegularSteps run is retried by its lead's), by default the activity's own.
   */
  retried<T>(type: StepName, call: () => Promise<T>, policy?: StepName): Promise<T>;
}

/** A step attempted locally reached the LLM or consumer code: it wrote nothing and runs again as a regular one. */
function handedOver(err: unknown): boolean {
  return err instanceof ApplicationFailure && err.type === ErrorType.NeedsRegularActivity;
}

/**
 * The in-process side of step runs (core/turn/step-runs.ts), planned exactly as the workflow plans
 * them (workflows/step-runs.ts, turn-executor-v2.ts): a local step leads a LocalSteps run, a step
 * that runs regularly (or was handed over) a RegularSteps run, and local steps are attempted as
 * local attempts, handing the LLM and consumer code over where the workflow does. So both runners
 * make the same activity calls with the same inputs, and write the same audit rows in the same order.
 */
export class InProcessStepRuns {
  private readonly results = new StepRunResults();

  constructor(private readonly deps: InProcessStepRunsDeps) {}

  async runStep<O extends StepOutput>(name: RunStepName, input: StepInput, next: readonly PlannedStep[]): Promise<O> {
    const { calls } = this.deps;
    const step = { name, callKey: input.callKey };
    const local = joinsStepRuns(STEP_TABLE[name]);
    let answer = this.results.take(step);
    if (!answer && local) {
      const planned = stepRunFrom(step, next, this.joins);
      if (planned.length > 1) await this.run('LocalSteps', planned, calls.input(input));
      answer = this.results.take(step);
    }
    if (answer?.kind === 'ran') return calls.output(name, input, answer.result as StepResult<O>);
    if (answer?.kind === 'handedOver')
      return this.regular(step, input, { ...calls.input(input), ...answer.carried }, next);
    const call = calls.input(input);
    if (!local) return this.regular(step, input, call, next);
    const activity = this.deps.activities[name] as Activity<O>;
    try {
      return calls.output(name, input, await this.deps.retried(name, () => asLocalAttempt(() => activity(call))));
    } catch (err) {
      if (!handedOver(err)) throw err;
      return this.regular(step, input, call, next);
    }
  }

  private readonly joins = (name: RunStepName): boolean => joinsStepRuns(STEP_TABLE[name]);

  /** The step as a regular activity: leading a RegularSteps run when local steps follow it, else alone. */
  private async regular<O extends StepOutput>(
    step: PlannedStep,
    input: StepInput,
    call: StepInput,
    next: readonly PlannedStep[]
  ): Promise<O> {
    const { calls } = this.deps;
    const planned = stepRunFrom(step, next, this.joins);
    if (planned.length < 2) {
      const activity = this.deps.activities[step.name] as Activity<O>;
      return calls.output(step.name, input, await this.deps.retried(step.name, () => activity(call)));
    }
    await this.run('RegularSteps', planned, call);
    const answer = this.results.take(step);
    if (answer?.kind !== 'ran') throw new Error(`step run led by ${step.callKey} did not run its lead`);
    return calls.output(step.name, input, answer.result as StepResult<O>);
  }

  /** A LocalSteps run is attempted locally, as the workflow's local activity is; a RegularSteps one with its lead's retries. */
  private async run(type: StepRunType, steps: PlannedStep[], call: StepInput): Promise<void> {
    const input = stepRunInput(steps, call);
    const activity = this.deps.activities[type];
    const lead: StepName = steps[0]?.name ?? type;
    const result =
      type === 'LocalSteps'
        ? await this.deps.retried(type, () => asLocalAttempt(() => activity(input)))
        : await this.deps.retried(type, () => activity(input), lead);
    this.results.hold(result, input);
  }
}
