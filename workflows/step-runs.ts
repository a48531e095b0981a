import { patched, proxyActivities, proxyLocalActivities, type ActivityOptions } from '@temporalio/workflow';
import type { TurnActivities } from '../core/turn/activities';
import type { StepInput } from '../core/turn/contracts';
import {
  isMcpUnit,
  runSummary,
  stepRunFrom,
  stepRunInput,
  StepRunResults,
  type PlannedStep,
  type RunAnswer,
  type RunStepName,
} from '../core/turn/step-runs';
import { STEP_TABLE } from '../core/turn/steps';
import { activityOptionsFor, localActivityOptionsFor } from './activity-options';

/** Histories from before step runs scheduled every local step as a local activity of its own. */
export const STEP_RUNS_PATCH = 'local-step-runs';

/**
 * Histories from before it ran McpPrepare and McpFinalize as local activities of their own, never
 * in a step run, and every regular step as a regular activity of its own (no RegularSteps). It
 * implies STEP_RUNS_PATCH (and everything that one implies), so a new history records this one
 * marker only.
 */
export const WIDE_STEP_RUNS_PATCH = 'wide-step-runs';

/** Which step runs this history has: wide ones, of the pipeline's local steps only, or none (asked in that order). */
export function stepRunsIn(): 'wide' | 'pipeline' | null {
  if (patched(WIDE_STEP_RUNS_PATCH)) return 'wide';
  return patched(STEP_RUNS_PATCH) ? 'pipeline' : null;
}

const { LocalSteps } = proxyLocalActivities<Pick<TurnActivities, 'LocalSteps'>>(
  localActivityOptionsFor(STEP_TABLE.LocalSteps)
);
// Defaults only: every call passes its lead step's options.
const { RegularSteps } = proxyActivities<Pick<TurnActivities, 'RegularSteps'>>(
  activityOptionsFor(STEP_TABLE.RegularSteps)
);

/**
 * The workflow side of step runs (core/turn/step-runs.ts): plans the run a step leads, runs it as
 * one activity, local or regular, and answers the driver's next requests from the run's result, in
 * order.
 */
export class StepRuns {
  private readonly results = new StepRunResults();

  constructor(private readonly runsLocally: (name: RunStepName) => boolean) {}

  /** The run's answer for this step; null when no run covered it. */
  take(step: PlannedStep): RunAnswer | null {
    return this.results.take(step);
  }

  /**
   * The run `step` would lead, as a local activity or as a regular one: two or more steps; else
   * null. The patches are asked first, so histories from before replay with the very commands they
   * recorded.
   */
  plan(step: PlannedStep, next: readonly PlannedStep[], lead: 'local' | 'regular'): PlannedStep[] | null {
    const runs = stepRunsIn();
    if (runs === null || (lead === 'regular' && runs !== 'wide')) return null;
    const joins = (name: RunStepName) => (runs === 'wide' || !isMcpUnit(name)) && this.runsLocally(name);
    if (lead === 'local' && !joins(step.name)) return null;
    const run = stepRunFrom(step, next, joins);
    return run.length > 1 ? run : null;
  }

  /** Runs the planned steps as one local activity; `call` is the first step's input, as the executor built it. */
  async runLocal(steps: PlannedStep[], call: StepInput): Promise<void> {
    const input = stepRunInput(steps, call);
    const options = { ...localActivityOptionsFor(STEP_TABLE.LocalSteps), summary: runSummary(steps) };
    this.results.hold(await LocalSteps.executeWithOptions(options, [input]), input);
  }

  /** Runs the planned steps as one regular activity, with the lead step's options and a summary naming them all. */
  async runRegular(
    steps: PlannedStep[],
    call: StepInput,
    options: ActivityOptions & { summary: string }
  ): Promise<void> {
    const input = stepRunInput(steps, call);
    this.results.hold(await RegularSteps.executeWithOptions(options, [input]), input);
  }
}
