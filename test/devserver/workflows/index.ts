/**
 * Workflows of the dev server conformance suite. Activities are registered by each test file;
 * here they are referenced by name only.
 */
import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';

export interface TestActivities {
  echo(value: number): Promise<number>;
  flaky(failures: number, errorType: string, nonRetryable: boolean): Promise<number>;
  slow(ms: number): Promise<string>;
  heartbeating(ms: number): Promise<string>;
  attemptNumber(): Promise<number>;
  /** How many times it has been called with this key in this worker process. */
  callsWith(key: string): Promise<number>;
}

export const addSignal = defineSignal<[number]>('add');
export const finishSignal = defineSignal('finish');
export const totalQuery = defineQuery<number>('total');
export const incrementUpdate = defineUpdate<number, [number]>('increment');

/** Runs `count` activities one after the other; returns their sum. */
export async function activitySequence(count: number): Promise<number> {
  const { echo } = proxyActivities<TestActivities>({ startToCloseTimeout: '10 seconds' });
  let sum = 0;
  for (let i = 1; i <= count; i++) sum += await echo(i);
  return sum;
}

/** One activity with the given options; returns its result or the failure's details as a string. */
export async function activityWithOptions(
  name: keyof TestActivities,
  args: unknown[],
  options: ActivityOptions
): Promise<string> {
  const activities = proxyActivities<Record<string, (...a: unknown[]) => Promise<unknown>>>(options);
  const activity = activities[name] as (...a: unknown[]) => Promise<unknown>;
  return JSON.stringify(await activity(...args));
}

/** Accumulates `add` signals until `finish`; `total` query and `increment` update read/modify the sum. */
export async function accumulator(initial: number): Promise<number> {
  let total = initial;
  let finished = false;
  setHandler(addSignal, (n) => void (total += n));
  setHandler(finishSignal, () => void (finished = true));
  setHandler(totalQuery, () => total);
  setHandler(
    incrementUpdate,
    (n) => {
      total += n;
      return total;
    },
    {
      validator: (n) => {
        if (n < 0) throw new Error(`increment must not be negative, got ${n}`);
      },
    }
  );
  await condition(() => finished);
  return total;
}

export async function timerThenActivity(ms: number): Promise<number> {
  const { echo } = proxyActivities<TestActivities>({ startToCloseTimeout: '10 seconds' });
  await sleep(ms);
  return echo(ms);
}

/** Waits until cancelled or terminated. */
export async function waitForever(): Promise<void> {
  await condition(() => false);
}

/** Runs a heartbeating activity; on workflow cancellation waits for the activity to acknowledge. */
export async function cancellableActivity(ms: number): Promise<string> {
  const { heartbeating } = proxyActivities<TestActivities>({
    startToCloseTimeout: '30 seconds',
    heartbeatTimeout: '2 seconds',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  try {
    return await heartbeating(ms);
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => sleep(10));
      return 'workflow saw cancellation';
    }
    throw error;
  }
}

/** Upserts typed search attributes and memo, then waits for `finish`. */
export async function searchAttributeWriter(
  pairs: { name: string; type: string; value: unknown }[],
  memo: Record<string, unknown>
): Promise<string> {
  let finished = false;
  setHandler(finishSignal, () => void (finished = true));
  upsertSearchAttributes(
    pairs.map((p) => ({ key: { name: p.name, type: p.type }, value: p.value }) as SearchAttributeUpdatePair)
  );
  upsertMemo(memo);
  await condition(() => finished);
  return workflowInfo().workflowId;
}

/** Uses `patched()` (a marker plus the TemporalChangeVersion search attribute) and a local activity. */
export async function patchedWithLocalActivity(): Promise<number> {
  const { echo } = proxyLocalActivities<TestActivities>({ startToCloseTimeout: '10 seconds' });
  const value = patched('dev-server-patch') ? 2 : 1;
  return echo(value * 21);
}

export async function continueAsNewCounter(remaining: number, carried: number): Promise<number> {
  if (remaining <= 0) return carried;
  await sleep(1);
  return continueAsNew<typeof continueAsNewCounter>(remaining - 1, carried + 1);
}

/**
 * Fails its workflow task (not the workflow) while less than `ms` of workflow time has passed since
 * the start. Workflow time is the WorkflowTaskStarted time, so replay takes the same path.
 */
/**
 * Fails its workflow task until the task has run `runs` times. The runs are counted by a local
 * activity: a failed task records no marker, so each attempt calls it again. Counting, not timing,
 * keeps the attempt count the same on a loaded machine, where the first task may start late.
 */
export async function failsWorkflowTaskUntilRun(runs: number): Promise<number> {
  const { callsWith } = proxyLocalActivities<TestActivities>({ startToCloseTimeout: '10 seconds' });
  const run = await callsWith(workflowInfo().workflowId);
  if (run < runs) throw new Error(`deliberate workflow task failure on run ${run}`);
  return run;
}

export async function failsWorkflow(message: string): Promise<void> {
  throw ApplicationFailure.nonRetryable(message, 'DeliberateFailure');
}

/** Not supported by the dev server: the workflow task fails with a clear message. */
export async function startsChild(): Promise<void> {
  await executeChild(waitForever, { workflowId: `${workflowInfo().workflowId}-child` });
}

/** Fails (retryably) on its first attempt; the workflow RetryPolicy starts a second run. */
export async function failsOnFirstAttempt(): Promise<number> {
  const { attempt } = workflowInfo();
  if (attempt === 1) throw ApplicationFailure.retryable('first attempt fails', 'FirstAttempt');
  return attempt;
}

/** Runs a local activity longer than the workflow task timeout, so core heartbeats the task. */
export async function longLocalActivity(ms: number): Promise<string> {
  const { slow } = proxyLocalActivities<TestActivities>({ startToCloseTimeout: '10 seconds' });
  return slow(ms);
}

export const releaseSignal = defineSignal('release');
export const holdUpdate = defineUpdate<number, [number]>('hold');

/** Each `hold` update stays in flight (accepted, not completed) until a `release` signal; then `finish` ends the run. */
export async function updateHolder(): Promise<number> {
  let released = false;
  let finished = false;
  let held = 0;
  setHandler(releaseSignal, () => void (released = true));
  setHandler(finishSignal, () => void (finished = true));
  setHandler(holdUpdate, async (n) => {
    held++;
    await condition(() => released);
    return n;
  });
  await condition(() => finished);
  return held;
}

/**
 * Runs a local activity of `ms` in its first workflow task, then closes the run in that same task: the
 * completion carries the activity's marker and the close command (`fail`, or `continue` as new into a run that
 * completes at once), so whatever reaches the run meanwhile finds it closing.
 */
export async function closesAfterLocalActivity(ms: number, close: 'fail' | 'continue' | 'complete'): Promise<number> {
  const { slow } = proxyLocalActivities<TestActivities>({ startToCloseTimeout: '10 seconds' });
  setHandler(holdUpdate, (n) => n);
  setHandler(releaseSignal, () => undefined);
  if (ms > 0) await slow(ms);
  if (close === 'fail') throw ApplicationFailure.nonRetryable('closed after its local activity', 'DeliberateFailure');
  if (close === 'continue') return continueAsNew<typeof closesAfterLocalActivity>(0, 'complete');
  return ms;
}

/** Runs one activity with the given options; the workflow's own result is that activity's. */
export async function pausableActivity(ms: number): Promise<string> {
  const { heartbeating } = proxyActivities<TestActivities>({
    startToCloseTimeout: '60 seconds',
    heartbeatTimeout: '5 seconds',
    retry: { initialInterval: 100, maximumAttempts: 3 },
  });
  return heartbeating(ms);
}

/** Upserts the Datetime attribute `name` from an ISO string (a Date cannot cross the JSON argument boundary). */
export async function datetimeUpserter(name: string, iso: string): Promise<string> {
  let finished = false;
  setHandler(finishSignal, () => void (finished = true));
  upsertSearchAttributes([{ key: { name, type: 'DATETIME' }, value: new Date(iso) }] as SearchAttributeUpdatePair[]);
  await condition(() => finished);
  return iso;
}

export const stageQuery = defineQuery<string>('stage');

/**
 * Waits for `release`, runs a local activity of `ms`, then asks `patched()` in the same activation (its marker and
 * TemporalChangeVersion upsert follow the activity's marker, as a turn's do after its hold's audit), then waits for
 * `finish`. `stage` answers where it stands, so a test can query it throughout.
 */
export async function queriedLocalActivity(ms: number): Promise<string> {
  const { slow } = proxyLocalActivities<TestActivities>({ startToCloseTimeout: '30 seconds' });
  let stage = 'waiting';
  let released = false;
  let finished = false;
  setHandler(stageQuery, () => stage);
  setHandler(releaseSignal, () => void (released = true));
  setHandler(finishSignal, () => void (finished = true));
  await condition(() => released);
  stage = 'running';
  await slow(ms);
  stage = patched('after-local-activity') ? 'patched' : 'unpatched';
  await condition(() => finished);
  return stage;
}
