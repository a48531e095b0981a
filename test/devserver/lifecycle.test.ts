/**
 * Conformance: workflow task failure and start-to-close timeout, workflow run and execution
 * timeouts, workflow retry policies, workflow task heartbeats during long local activities, and
 * sticky execution falling back to the normal queue when the sticky worker is gone.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { TimeoutFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createHarness, eventTypes, replayCollected, type Harness } from './harness';
import {
  addSignal,
  finishSignal,
  totalQuery,
  type accumulator,
  type failsOnFirstAttempt,
  type failsWorkflowTaskUntilRun,
  type longLocalActivity,
  type waitForever,
} from './workflows';

const callsByKey = new Map<string, number>();
let harness: Harness & { worker: { shutdown(): void; getState(): string }; running: Promise<void> };

// Jest only honours testTimeout globally, not per project.
jest.setTimeout(60_000);

beforeAll(async () => {
  harness = await createHarness({
    echo: async (value: number) => value,
    slow: async (ms: number) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return 'slow done';
    },
    callsWith: async (key: string) => {
      const calls = (callsByKey.get(key) ?? 0) + 1;
      callsByKey.set(key, calls);
      return calls;
    },
  });
});

afterAll(async () => {
  await harness?.close();
});

test('a failing workflow task is recorded once, then retried after start-to-close timeouts until it succeeds', async () => {
  const handle = await harness.client.workflow.start<typeof failsWorkflowTaskUntilRun>('failsWorkflowTaskUntilRun', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('wft-failure'),
    args: [3],
    // Room for a run's local activity on a loaded machine: a first task that timed out would not be recorded failed.
    workflowTaskTimeout: '2 seconds',
  });
  expect(await handle.result()).toBe(3);
  const history = await handle.fetchHistory();
  const types = await eventTypes(handle);
  expect(types.filter((t) => t === 'WORKFLOW_TASK_FAILED')).toHaveLength(1);
  const scheduled = (history.events ?? []).filter((e) => e.workflowTaskScheduledEventAttributes);
  const lastAttempt = scheduled[scheduled.length - 1]?.workflowTaskScheduledEventAttributes?.attempt ?? 0;
  expect(lastAttempt).toBeGreaterThanOrEqual(3);
  // The second run's failure is not reported: the third run waits for its start-to-close timeout.
  const timeOf = (type: string) => {
    const event = (history.events ?? []).find(
      (e) => temporal.api.enums.v1.EventType[e.eventType ?? 0] === `EVENT_TYPE_${type}`
    );
    if (!event?.eventTime) throw new Error(`no ${type} event with a time`);
    return Number(event.eventTime.seconds ?? 0) * 1000 + Math.floor((event.eventTime.nanos ?? 0) / 1e6);
  };
  expect(timeOf('WORKFLOW_EXECUTION_COMPLETED') - timeOf('WORKFLOW_TASK_FAILED')).toBeGreaterThanOrEqual(1_900);
  await harness.collect(handle);
});

test('a workflow run timeout closes the run as TIMED_OUT', async () => {
  const handle = await harness.client.workflow.start<typeof waitForever>('waitForever', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('run-timeout'),
    workflowRunTimeout: '1 second',
  });
  const error = (await handle.result().catch((e: unknown) => e)) as WorkflowFailedError;
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(error.cause).toBeInstanceOf(TimeoutFailure);
  expect((await handle.describe()).status.name).toBe('TIMED_OUT');
  expect((await eventTypes(handle)).pop()).toBe('WORKFLOW_EXECUTION_TIMED_OUT');
  await harness.collect(handle);
});

test('a workflow execution timeout closes the run as TIMED_OUT', async () => {
  const handle = await harness.client.workflow.start<typeof waitForever>('waitForever', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('execution-timeout'),
    workflowExecutionTimeout: '1 second',
  });
  const started = Date.now();
  const error = (await handle.result().catch((e: unknown) => e)) as WorkflowFailedError;
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  expect(error.cause).toBeInstanceOf(TimeoutFailure);
  const history = await handle.fetchHistory();
  const startedEvent = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  expect(startedEvent?.workflowExecutionExpirationTime).toBeTruthy();
  await harness.collect(handle);
});

test('a workflow RetryPolicy retries a failed run as a new run of the same workflow', async () => {
  const handle = await harness.client.workflow.start<typeof failsOnFirstAttempt>('failsOnFirstAttempt', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('workflow-retry'),
    retry: { initialInterval: 200, maximumAttempts: 3 },
  });
  expect(await handle.result()).toBe(2);
  const firstRun = harness.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
  const firstHistory = await firstRun.fetchHistory();
  const failed = firstHistory.events?.pop()?.workflowExecutionFailedEventAttributes;
  expect(failed?.retryState).toBe(temporal.api.enums.v1.RetryState.RETRY_STATE_IN_PROGRESS);
  expect(failed?.newExecutionRunId).toBeTruthy();
  const secondRun = harness.client.workflow.getHandle(handle.workflowId, failed?.newExecutionRunId ?? undefined);
  const started = (await secondRun.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
  expect(started?.attempt).toBe(2);
  expect(started?.continuedFailure?.message).toBe('first attempt fails');
  await harness.collect(firstRun);
  await harness.collect(secondRun);
});

// The worker heartbeats its workflow task at 80 % of the timeout, so the server sees each heartbeat with
// a fifth of the timeout to spare: 600 ms here, which a loaded 2-core CI machine needs (200 ms was not).
test('a local activity longer than the workflow task timeout heartbeats the workflow task', async () => {
  const handle = await harness.client.workflow.start<typeof longLocalActivity>('longLocalActivity', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('local-activity'),
    args: [6500],
    workflowTaskTimeout: '3 seconds',
  });
  expect(await handle.result()).toBe('slow done');
  const types = await eventTypes(handle);
  expect(types.filter((t) => t === 'WORKFLOW_TASK_COMPLETED').length).toBeGreaterThanOrEqual(3);
  expect(types).not.toContain('WORKFLOW_TASK_TIMED_OUT');
  expect(types).toContain('MARKER_RECORDED');
  await harness.collect(handle);
});

// Stops the file's shared worker, so it runs after every test that needs it.
test('when the sticky worker shuts down, the next workflow task goes to another worker with full history', async () => {
  const handle = await harness.client.workflow.start<typeof accumulator>('accumulator', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('sticky'),
    args: [1],
  });
  await handle.signal(addSignal, 1);
  expect(await handle.query(totalQuery)).toBe(2);
  harness.worker.shutdown();
  await harness.running;
  const replacement = await harness.newWorker({});
  const result = await replacement.runUntil(async () => {
    await handle.signal(addSignal, 3);
    expect(await handle.query(totalQuery)).toBe(5);
    await handle.signal(finishSignal);
    return handle.result();
  });
  expect(result).toBe(5);
  const history = await handle.fetchHistory();
  const stickyQueues = (history.events ?? [])
    .map((e) => e.workflowTaskScheduledEventAttributes?.taskQueue)
    .filter((q) => q?.kind === temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY);
  expect(stickyQueues.length).toBeGreaterThan(0);
  await harness.collect(handle);
});

test('Worker.runReplayHistories accepts every history collected above', async () => {
  expect(harness.histories.length).toBeGreaterThanOrEqual(4);
  expect(await replayCollected(harness, 'lifecycle')).toEqual([]);
});
