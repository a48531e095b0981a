import { patched, proxyLocalActivities } from '@temporalio/workflow';
import type { TurnActivities } from '../core/turn/activities';
import type { PipelineStepName, StepInput } from '../core/turn/contracts';
import {
  localRun,
  runSummary,
  stepRunInput,
  StepRunResults,
  type PlannedStep,
  type RunAnswer,
} from '../core/turn/step-runs';
import { STEP_TABLE } from '../core/turn/steps';
import { localActivityOptionsFor } from './activity-options';

/** Histories from before step runs scheduled every local step as a local activity of its own. */
export const STEP_RUNS_PATCH = 'local-step-runs';

const { LocalSteps } = proxyLocalActivities<Pick<TurnActivities, 'LocalSteps'>>(
  localActivityOptionsFor(STEP_TABLE.LocalSteps)
);

/**
 * The workflow side of step runs (core/turn/step-runs.ts): starts a run when the driver asks for a
 * local step that has more local steps planned after it, and answers the driver's next requests
 * from the run's result, in order.
 */
export class LocalStepRuns {
  private readonly results = new StepRunResults();

  constructor(private readonly runsLocally: (name: PipelineStepName) => boolean) {}

  /** The run's answer for this step; null when no run covered it. */
  take(step: PlannedStep): RunAnswer | null {
    return this.results.take(step);
  }

  /**
   * The run that would start at `step`: two or more local steps; else null. The patch is asked
   * first, so histories from before runs replay with the very commands they recorded.
   */
  plan(step: PlannedStep, next: readonly PlannedStep[]): PlannedStep[] | null {
    if (!patched(STEP_RUNS_PATCH)) return null;
    const run = localRun(step, next, this.runsLocally);
    return run.length > 1 ? run : null;
  }

  /** Runs the planned steps as one local activity; `call` is the first step's input, as the executor built it. */
  async run(steps: PlannedStep[], call: StepInput): Promise<void> {
    const input = stepRunInput(steps, call);
    const result = await LocalSteps.executeWithOptions(
      { ...localActivityOptionsFor(STEP_TABLE.LocalSteps), summary: runSummary(steps) },
      [input]
    );
    this.results.hold(result, input);
  }
}
