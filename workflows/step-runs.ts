import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { TurnActivities } from '../core/turn/activities';
import type { StepRunKind, StepRunsIn } from '../core/turn/step-runner';
import { runLead, type StepRunInput, type StepRunResult } from '../core/turn/step-runs';
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
export function stepRunsIn(): StepRunsIn {
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
 * A step run as one activity (core/turn/step-runner.ts): a local activity, or a regular one with
 * the lead step's retry policy and timeout, each with a summary naming its steps.
 */
export function runStepsActivity(kind: StepRunKind, input: StepRunInput, summary: string): Promise<StepRunResult> {
  if (kind === 'local') {
    return LocalSteps.executeWithOptions({ ...localActivityOptionsFor(STEP_TABLE.LocalSteps), summary }, [input]);
  }
  return RegularSteps.executeWithOptions({ ...activityOptionsFor(STEP_TABLE[runLead(input)]), summary }, [input]);
}
