import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { TurnActivities } from '../core/turn/activities';
import type { StepRunKind } from '../core/turn/step-runner';
import { runLead, type StepRunInput, type StepRunResult } from '../core/turn/step-runs';
import { STEP_TABLE } from '../core/turn/steps';
import { activityOptionsFor, localActivityOptionsFor } from './activity-options';
import { checkedStepRunResult } from './step-replies';

const { LocalSteps } = proxyLocalActivities<Pick<TurnActivities, 'LocalSteps'>>(
  localActivityOptionsFor(STEP_TABLE.LocalSteps)
);
// Defaults only: every call passes its lead step's options.
const { RegularSteps } = proxyActivities<Pick<TurnActivities, 'RegularSteps'>>(
  activityOptionsFor(STEP_TABLE.RegularSteps)
);

/**
 * A step run as one activity (core/turn/step-runner.ts): a local activity, or a regular one with
 * the lead step's retry policy and timeout, each with a summary naming its steps. Its answer is checked
 * (step-replies.ts) before the step runner holds it.
 */
export async function runStepsActivity(
  kind: StepRunKind,
  input: StepRunInput,
  summary: string
): Promise<StepRunResult> {
  const result =
    kind === 'local'
      ? await LocalSteps.executeWithOptions({ ...localActivityOptionsFor(STEP_TABLE.LocalSteps), summary }, [input])
      : await RegularSteps.executeWithOptions({ ...activityOptionsFor(STEP_TABLE[runLead(input)]), summary }, [input]);
  return checkedStepRunResult(runLead(input), input.steps[0]?.callKey ?? '', result);
}
