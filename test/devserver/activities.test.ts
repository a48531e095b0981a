/**
 * Conformance: server-side activity retries (attempt counts, backoff, non-retryable failures,
 * nextRetryDelay), every activity timeout kind, heartbeats and cancellation, async completion by ID.
 */
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { CompleteAsyncError, Context } from '@temporalio/activity';
import type { ActivityOptions } from '@temporalio/workflow';
import { temporal } from '@temporalio/proto';
import { createHarness, eventTypes, replayCollected, type Harness } from './harness';
import type { activityWithOptions, cancellableActivity } from './workflows';

/** Attempt start times per workflow, recorded by the activities. */
const attempts = new Map<string, number[]>();
const asyncTokens = new Map<string, string>();

function recordAttempt(): number {
  const info = Context.current().info;
  const workflowId = info.workflowExecution?.workflowId ?? '';
  const list = attempts.get(workflowId) ?? [];
  list.push(Date.now());
  attempts.set(workflowId, list);
  return info.attempt;
}

const activities = {
  echo: async (value: number) => value,
  async flaky(failures: number, errorType: string, nonRetryable: boolean): Promise<number> {
    const attempt = recordAttempt();
    if (attempt <= failures) {
      throw ApplicationFailure.create({ message: `attempt ${attempt} failed`, type: errorType, nonRetryable });
    }
    return attempt;
  },
  async failsWithRetryDelay(delayMs: number): Promise<number> {
    const attempt = recordAttempt();
    if (attempt === 1) throw ApplicationFailure.create({ message: 'later please', nextRetryDelay: delayMs });
    return attempt;
  },
  async slow(ms: number): Promise<string> {
    recordAttempt();
    await Context.current().sleep(ms);
    return 'slow done';
  },
  async slowAfterFirstAttempt(ms: number): Promise<string> {
    if (recordAttempt() === 1) throw ApplicationFailure.create({ message: 'first attempt fails fast' });
    await Context.current().sleep(ms);
    return 'slow done';
  },
  async heartbeatOnceThenStall(ms: number): Promise<string> {
    recordAttempt();
    Context.current().heartbeat('only beat');
    await Context.current().sleep(ms);
    return 'stalled';
  },
  async heartbeatDetailsAcrossAttempts(): Promise<string> {
    const attempt = recordAttempt();
    const previous = Context.current().info.heartbeatDetails as string | undefined;
    if (attempt === 1) {
      Context.current().heartbeat('progress-1');
      throw ApplicationFailure.create({ message: 'retry me' });
    }
    return `attempt ${attempt} resumed from ${previous}`;
  },
  async heartbeating(ms: number): Promise<string> {
    const context = Context.current();
    const end = Date.now() + ms;
    while (Date.now() < end) {
      context.heartbeat();
      await context.sleep(100);
    }
    return 'heartbeating finished';
  },
  async completesAsync(): Promise<string> {
    const info = Context.current().info;
    asyncTokens.set(info.workflowExecution?.workflowId ?? '', info.activityId);
    throw new CompleteAsyncError();
  },
};

let harness: Harness;

// Jest only honours testTimeout globally, not per project.
jest.setTimeout(60_000);

beforeAll(async () => {
  harness = await createHarness(activities);
});

afterAll(async () => {
  await harness?.close();
});

async function runActivity(name: string, args: unknown[], options: ActivityOptions) {
  const handle = await harness.client.workflow.start<typeof activityWithOptions>('activityWithOptions', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id(name),
    args: [name as never, args, options],
  });
  const outcome = await handle.result().then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error: error as WorkflowFailedError })
  );
  await harness.collect(handle);
  return { ...outcome, handle, attemptTimes: attempts.get(handle.workflowId) ?? [] };
}

function activityFailure(error: WorkflowFailedError | undefined): ActivityFailure {
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(error?.cause).toBeInstanceOf(ActivityFailure);
  return error?.cause as ActivityFailure;
}

const fastRetry = { initialInterval: 50, backoffCoefficient: 1 };

test('failed attempts are retried server-side until one succeeds; history shows only the last attempt', async () => {
  const { value, handle, attemptTimes } = await runActivity('flaky', [2, 'Flaky', false], {
    startToCloseTimeout: '5s',
    retry: { ...fastRetry, maximumAttempts: 5 },
  });
  expect(value).toBe('3');
  expect(attemptTimes).toHaveLength(3);
  const history = await handle.fetchHistory();
  const started = history.events?.filter((e) => e.activityTaskStartedEventAttributes);
  expect(started?.map((e) => e.activityTaskStartedEventAttributes?.attempt)).toEqual([3]);
  expect(started?.[0]?.activityTaskStartedEventAttributes?.lastFailure?.message).toBe('attempt 2 failed');
});

test('retries stop at maximumAttempts', async () => {
  const { error, attemptTimes } = await runActivity('flaky', [10, 'Flaky', false], {
    startToCloseTimeout: '5s',
    retry: { ...fastRetry, maximumAttempts: 3 },
  });
  const failure = activityFailure(error);
  expect(failure.retryState).toBe(RetryState.MAXIMUM_ATTEMPTS_REACHED);
  expect(failure.cause?.message).toBe('attempt 3 failed');
  expect(attemptTimes).toHaveLength(3);
});

test('a non-retryable ApplicationFailure is not retried', async () => {
  const { error, attemptTimes } = await runActivity('flaky', [10, 'Flaky', true], {
    startToCloseTimeout: '5s',
    retry: { ...fastRetry, maximumAttempts: 5 },
  });
  expect(activityFailure(error).retryState).toBe(RetryState.NON_RETRYABLE_FAILURE);
  expect(attemptTimes).toHaveLength(1);
});

test('a failure type listed in nonRetryableErrorTypes is not retried', async () => {
  const { error, attemptTimes } = await runActivity('flaky', [10, 'Fatal', false], {
    startToCloseTimeout: '5s',
    retry: { ...fastRetry, maximumAttempts: 5, nonRetryableErrorTypes: ['Fatal'] },
  });
  expect(activityFailure(error).retryState).toBe(RetryState.NON_RETRYABLE_FAILURE);
  expect(attemptTimes).toHaveLength(1);
});

test('backoff grows by the coefficient and is capped by maximumInterval', async () => {
  // Intervals of a second and more: both servers fire no timer sooner than ~1 s after it is set.
  const { value, attemptTimes } = await runActivity('flaky', [3, 'Flaky', false], {
    startToCloseTimeout: '5s',
    retry: { initialInterval: 1000, backoffCoefficient: 2, maximumInterval: 1500, maximumAttempts: 5 },
  });
  expect(value).toBe('4');
  const gaps = attemptTimes.slice(1).map((t, i) => t - (attemptTimes[i] as number));
  expect(gaps[0]).toBeGreaterThanOrEqual(990);
  expect(gaps[1]).toBeGreaterThanOrEqual(1490);
  expect(gaps[2]).toBeGreaterThanOrEqual(1490);
  // Uncapped, the third backoff would be 4 s.
  expect(gaps[2]).toBeLessThan(2500);
});

test('a retry backoff shorter than a second fires after about a second, as on the real server', async () => {
  const { value, attemptTimes } = await runActivity('flaky', [1, 'Flaky', false], {
    startToCloseTimeout: '5s',
    retry: { initialInterval: 50, maximumAttempts: 3 },
  });
  expect(value).toBe('2');
  const gap = (attemptTimes[1] as number) - (attemptTimes[0] as number);
  expect(gap).toBeGreaterThanOrEqual(900);
  expect(gap).toBeLessThan(3000);
});

test("an ApplicationFailure's nextRetryDelay overrides the policy backoff", async () => {
  const { value, attemptTimes } = await runActivity('failsWithRetryDelay', [600], {
    startToCloseTimeout: '5s',
    retry: { initialInterval: 10, maximumAttempts: 3 },
  });
  expect(value).toBe('2');
  expect((attemptTimes[1] as number) - (attemptTimes[0] as number)).toBeGreaterThanOrEqual(590);
});

test('a start-to-close timeout is retried, then reported as a TimeoutFailure', async () => {
  const { error, attemptTimes } = await runActivity('slow', [2000], {
    startToCloseTimeout: 400,
    retry: { ...fastRetry, maximumAttempts: 2 },
  });
  const failure = activityFailure(error);
  expect(failure.retryState).toBe(RetryState.MAXIMUM_ATTEMPTS_REACHED);
  expect(failure.cause).toBeInstanceOf(TimeoutFailure);
  expect((failure.cause as TimeoutFailure).timeoutType).toBe(TimeoutType.START_TO_CLOSE);
  expect(attemptTimes).toHaveLength(2);
});

test('a schedule-to-close timeout ends the activity across attempts', async () => {
  // The retry starts ~1 s after the first attempt fails (the timer floor), the timeout fires at 3 s.
  const { error, attemptTimes } = await runActivity('slowAfterFirstAttempt', [5000], {
    scheduleToCloseTimeout: 3000,
    retry: { ...fastRetry, maximumAttempts: 5 },
  });
  const failure = activityFailure(error);
  expect(failure.cause).toBeInstanceOf(TimeoutFailure);
  expect((failure.cause as TimeoutFailure).timeoutType).toBe(TimeoutType.SCHEDULE_TO_CLOSE);
  expect(attemptTimes).toHaveLength(2);
});

test('a schedule-to-start timeout fires when no worker polls the queue', async () => {
  const { error, handle } = await runActivity('echo', [1], {
    taskQueue: `nobody-polls-${harness.taskQueue}`,
    scheduleToStartTimeout: 500,
    startToCloseTimeout: '5s',
  });
  const failure = activityFailure(error);
  expect(failure.cause).toBeInstanceOf(TimeoutFailure);
  expect((failure.cause as TimeoutFailure).timeoutType).toBe(TimeoutType.SCHEDULE_TO_START);
  expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_STARTED');
});

test('a missed heartbeat times the attempt out with a HEARTBEAT TimeoutFailure', async () => {
  const { error } = await runActivity('heartbeatOnceThenStall', [2500], {
    startToCloseTimeout: '10s',
    heartbeatTimeout: 500,
    retry: { maximumAttempts: 1 },
  });
  const failure = activityFailure(error);
  expect(failure.cause).toBeInstanceOf(TimeoutFailure);
  expect((failure.cause as TimeoutFailure).timeoutType).toBe(TimeoutType.HEARTBEAT);
});

test('heartbeat details of a failed attempt reach the next attempt', async () => {
  const { value } = await runActivity('heartbeatDetailsAcrossAttempts', [], {
    startToCloseTimeout: '5s',
    retry: { ...fastRetry, maximumAttempts: 3 },
  });
  expect(value).toBe(JSON.stringify('attempt 2 resumed from progress-1'));
});

test('cancelling the workflow cancels a heartbeating activity through the heartbeat response', async () => {
  const handle = await harness.client.workflow.start<typeof cancellableActivity>('cancellableActivity', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('cancel-activity'),
    args: [20_000],
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  await handle.cancel();
  expect(await handle.result()).toBe('workflow saw cancellation');
  const types = await eventTypes(handle);
  expect(types).toContain('ACTIVITY_TASK_CANCEL_REQUESTED');
  expect(types).toContain('ACTIVITY_TASK_CANCELED');
  await harness.collect(handle);
});

test('an activity completed asynchronously by workflow and activity ID', async () => {
  const handle = await harness.client.workflow.start<typeof activityWithOptions>('activityWithOptions', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('async'),
    args: ['completesAsync' as never, [], { startToCloseTimeout: '10s' }],
  });
  const activityId = await new Promise<string>((resolve) => {
    const check = (): void => {
      const id = asyncTokens.get(handle.workflowId);
      if (id) resolve(id);
      else setTimeout(check, 20);
    };
    check();
  });
  await harness.client.activity.complete({ workflowId: handle.workflowId, activityId }, 'done later');
  expect(await handle.result()).toBe(JSON.stringify('done later'));
  const history = await handle.fetchHistory();
  const completed = history.events?.find(
    (e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
  );
  expect(completed).toBeDefined();
  await harness.collect(handle);
});

test('Worker.runReplayHistories accepts every history collected above', async () => {
  expect(harness.histories.length).toBeGreaterThanOrEqual(12);
  expect(await replayCollected(harness, 'activities')).toEqual([]);
});
