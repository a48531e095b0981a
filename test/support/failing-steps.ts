import type { TurnActivities } from '../../core/turn/activities';

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
