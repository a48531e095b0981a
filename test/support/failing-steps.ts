import { ApplicationFailure } from '@temporalio/common';
import type { TurnActivities } from '../../core/turn/activities';
import { FAILED_ATTEMPT_DETAIL } from '../../core/turn/executor';

/**
 * The harness's activities (WorkflowHarness.start `activities`) with `step` failing after its work, its
 * rows written, while `failures.left` > 0: a retryable failure, as a worker losing its connection.
 */
export function failingAfterWork(
  step: keyof TurnActivities,
  failures: { left: number }
): (base: TurnActivities) => TurnActivities {
  return (base) => {
    const work = base[step] as (input: never) => Promise<unknown>;
    const failing = async (input: never) => {
      const result = await work(input);
      if (failures.left > 0) {
        failures.left -= 1;
        throw new Error('worker lost its connection after the step');
      }
      return result;
    };
    return { ...base, [step]: failing } as TurnActivities;
  };
}

/**
 * The harness's activities with `step` failing for good (non-retryable, before its work) while `failing.on`, after
 * `delayMs`: a local step made slow enough for an update sent once it started to reach the turn's first workflow
 * task before that task completes. Its failure reports its attempt, as the step runtime's does once it has written the
 * turn's failure row, so the workflow schedules no TurnFailure (a regular activity) and fails in that same task.
 */
export function failingForGood(
  step: keyof TurnActivities,
  failing: { on: boolean; calls: number },
  delayMs: number
): (base: TurnActivities) => TurnActivities {
  return (base) => {
    const work = base[step] as (input: never) => Promise<unknown>;
    const failForGood = async (input: never) => {
      if (!failing.on) return work(input);
      failing.calls += 1;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      throw ApplicationFailure.create({
        message: `${step} refused the request`,
        type: 'STEP_REFUSED',
        nonRetryable: true,
        details: [{ [FAILED_ATTEMPT_DETAIL]: 1 }],
      });
    };
    return { ...base, [step]: failForGood } as TurnActivities;
  };
}
