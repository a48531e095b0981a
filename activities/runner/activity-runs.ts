import type { StepInput, StepOutput, StepReply } from '../../core/turn/contracts';
import type { StepCalls } from '../../core/turn/protocol';
import { STEP_TABLE, type StepName } from '../../core/turn/steps';
import { toolCallFailure } from '../../core/turn/executor';
import { runAsAttempt } from '../runtime/attempt';
import { isRetryableFailure } from '../runtime/failure';

/** How the in-process runner retries an activity. */
export interface ActivityRetryOptions {
  /**
   * Attempts per activity for retryable failures (Temporal's retry policy, without the sleeps);
   * default: the step table's own counts, exactly as the workflow schedules them.
   */
  maxAttempts?: number;
  /** Wraps every activity call (tests inject failures or lost results here). */
  around?: <T>(activity: string, attempt: number, call: () => Promise<T>) => Promise<T>;
}

/** Runs `call` until it succeeds, fails for good, or has had its attempts. */
export async function withRetries<T>(
  name: string,
  maxAttempts: number,
  options: ActivityRetryOptions,
  call: () => Promise<T>
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const run = () => runAsAttempt(attempt, call, maxAttempts);
      return await (options.around ? options.around(name, attempt, run) : run());
    } catch (err) {
      if (attempt >= maxAttempts || !isRetryableFailure(err)) throw err;
    }
  }
}

type Activity<I extends StepInput, O extends StepOutput> = (input: I) => Promise<StepReply<O>>;

export interface ActivityRuns {
  attemptsOf(name: StepName): number;
  run<I extends StepInput, O extends StepOutput>(
    name: StepName,
    input: I,
    activity: Activity<I, O>,
    max?: number
  ): Promise<O>;
  runTool<I extends StepInput>(
    name: StepName,
    input: I,
    activity: Activity<I, StepOutput>,
    max: number
  ): Promise<StepOutput>;
}

/** One activity at a time, retried as the workflow retries it, its input and reply passed through the step protocol. */
export function activityRuns(calls: StepCalls, options: ActivityRetryOptions): ActivityRuns {
  const attemptsOf = (name: StepName) => options.maxAttempts ?? STEP_TABLE[name].retry.maximumAttempts;
  async function run<I extends StepInput, O extends StepOutput>(
    name: StepName,
    input: I,
    activity: Activity<I, O>,
    max = attemptsOf(name)
  ): Promise<O> {
    const call = calls.input(input);
    return calls.output(name, input, await withRetries(name, max, options, () => activity(call)));
  }
  /** A tool activity, retried by the tool's policy; a failure for good is core's ToolCallFailure. */
  async function runTool<I extends StepInput>(
    name: StepName,
    input: I,
    activity: Activity<I, StepOutput>,
    max: number
  ) {
    let made = 0;
    const counted: Activity<I, StepOutput> = (call) => {
      made += 1;
      return activity(call);
    };
    try {
      return await run(name, input, counted, max);
    } catch (err) {
      throw toolCallFailure(err, made);
    }
  }
  return { attemptsOf, run, runTool };
}
