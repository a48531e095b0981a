import type { TurnActivities } from '../../core/turn/activities';
import type { StepInput, StepReply } from '../../core/turn/contracts';
import type { LocalAttemptOutcome, StepRunPort } from '../../core/turn/step-runner';
import { joinsStepRuns, runLead, type RunStepName } from '../../core/turn/step-runs';
import { STEP_TABLE, type StepName } from '../../core/turn/steps';
import { asLocalAttempt } from '../runtime/local-attempt';
import { handOverReason } from '../../core/errors';

export interface InProcessStepRunsDeps {
  activities: TurnActivities;
  /**
   * Calls the activity `type` with the runner's retries: the step table's count for `policy` (a
   * RegularSteps run is retried by its lead's), by default the activity's own.
   */
  retried<T>(type: StepName, call: () => Promise<T>, policy?: StepName): Promise<T>;
}

type StepActivity = (input: StepInput) => Promise<StepReply>;

/**
 * The in-process runner's side of step runs (core/turn/step-runner.ts): the same activity
 * functions the worker registers, called directly. Local steps and LocalSteps runs are attempted
 * as local attempts, as the workflow's local activities are, so both runners hand steps over at
 * the same places, make the same activity calls with the same inputs, and write the same audit
 * rows in the same order.
 */
export function inProcessStepRuns(deps: InProcessStepRunsDeps): StepRunPort {
  const { activities, retried } = deps;
  const activity = (name: RunStepName) => activities[name] as StepActivity;
  return {
    runsIn: () => 'wide',
    runsLocally: (name) => joinsStepRuns(STEP_TABLE[name]),
    runSteps: (kind, input) => {
      if (kind === 'local') return retried('LocalSteps', () => asLocalAttempt(() => activities.LocalSteps(input)));
      return retried('RegularSteps', () => activities.RegularSteps(input), runLead(input));
    },
    attemptLocally: async (name, call): Promise<LocalAttemptOutcome> => {
      try {
        return { reply: await retried(name, () => asLocalAttempt(() => activity(name)(call))) };
      } catch (err) {
        const reason = handOverReason(err);
        if (reason === null) throw err;
        return { handOver: reason };
      }
    },
    runRegularly: (name, call) => retried(name, () => activity(name)(call)),
  };
}
