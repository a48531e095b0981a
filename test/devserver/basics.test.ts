/**
 * Conformance: activities and history shape, timers, terminate / cancel, ID policies and
 * request-ID dedupe, history pagination and long polls, continue-as-new, markers.
 * Runs against the in-memory dev server, or the server named by TEMPORAL_ADDRESS.
 */
import { randomUUID } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, type Workflow } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createHarness, eventTypes, replayCollected, usingRealServer, type Harness } from './harness';
import type { accumulator, activitySequence, continueAsNewCounter, timerThenActivity, waitForever } from './workflows';

const EventType = temporal.api.enums.v1.EventType;
let harness: Harness;

// Jest only honours testTimeout globally, not per project.
jest.setTimeout(60_000);

beforeAll(async () => {
  harness = await createHarness({ echo: async (value: number) => value });
});

afterAll(async () => {
  await harness?.close();
});

function start<T extends Workflow>(type: string, args: Parameters<T>, id = harness.id(type)) {
  // WorkflowStartOptions makes `args` conditional on T, which TypeScript cannot resolve for a generic T.
  const options = { taskQueue: harness.taskQueue, workflowId: id, args } as unknown as WorkflowStartOptions<T>;
  return harness.client.workflow.start<T>(type, options);
}

test('an activity sequence completes with the history the real server writes', async () => {
  const handle = await start<typeof activitySequence>('activitySequence', [2]);
  expect(await handle.result()).toBe(3);
  const wft = ['WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED'];
  const activity = ['ACTIVITY_TASK_SCHEDULED', 'ACTIVITY_TASK_STARTED', 'ACTIVITY_TASK_COMPLETED'];
  expect(await eventTypes(handle)).toEqual([
    'WORKFLOW_EXECUTION_STARTED',
    ...wft,
    ...activity,
    ...wft,
    ...activity,
    ...wft,
    'WORKFLOW_EXECUTION_COMPLETED',
  ]);
  const history = await handle.fetchHistory();
  const ids = (history.events ?? []).map((e) => Number(e.eventId));
  expect(ids).toEqual(ids.map((_, i) => i + 1));
  await harness.collect(handle);
});

test('a timer fires before the activity that follows it', async () => {
  const handle = await start<typeof timerThenActivity>('timerThenActivity', [300]);
  const started = Date.now();
  expect(await handle.result()).toBe(300);
  expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  const types = await eventTypes(handle);
  expect(types.indexOf('TIMER_FIRED')).toBeGreaterThan(types.indexOf('TIMER_STARTED'));
  expect(types.indexOf('ACTIVITY_TASK_SCHEDULED')).toBeGreaterThan(types.indexOf('TIMER_FIRED'));
  await harness.collect(handle);
});

test('terminate closes the run; later signals get NOT_FOUND', async () => {
  const handle = await start<typeof waitForever>('waitForever', []);
  await handle.query('__stack_trace').catch(() => undefined);
  await handle.terminate('enough');
  const error = await handle.result().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect((error as WorkflowFailedError).cause).toBeInstanceOf(TerminatedFailure);
  expect((await handle.describe()).status.name).toBe('TERMINATED');
  await expect(handle.signal('add', 1)).rejects.toBeInstanceOf(WorkflowNotFoundError);
  await harness.collect(handle);
});

test('cancel request cancels a waiting workflow', async () => {
  const handle = await start<typeof waitForever>('waitForever', []);
  await handle.cancel();
  const error = await handle.result().catch((e: unknown) => e);
  expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect((await handle.describe()).status.name).toBe('CANCELLED');
  expect(await eventTypes(handle)).toContain('WORKFLOW_EXECUTION_CANCEL_REQUESTED');
  await harness.collect(handle);
});

test('a failing workflow reports its ApplicationFailure', async () => {
  const handle = await start<(message: string) => Promise<void>>('failsWorkflow', ['nope']);
  const error = (await handle.result().catch((e: unknown) => e)) as WorkflowFailedError;
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(error.cause).toBeInstanceOf(ApplicationFailure);
  expect(error.cause?.message).toBe('nope');
  await harness.collect(handle);
});

test('a running workflow ID conflicts unless USE_EXISTING or TERMINATE_EXISTING', async () => {
  const workflowId = harness.id('conflict');
  const first = await start<typeof waitForever>('waitForever', [], workflowId);
  await expect(start<typeof waitForever>('waitForever', [], workflowId)).rejects.toBeInstanceOf(
    WorkflowExecutionAlreadyStartedError
  );
  const options = { taskQueue: harness.taskQueue, workflowId, args: [] as [] };
  const existing = await harness.client.workflow.start('waitForever', {
    ...options,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
  expect(existing.firstExecutionRunId).toBe(first.firstExecutionRunId);
  const replacement = await harness.client.workflow.start('waitForever', {
    ...options,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.TERMINATE_EXISTING,
  });
  expect(replacement.firstExecutionRunId).not.toBe(first.firstExecutionRunId);
  const firstRun = harness.client.workflow.getHandle(workflowId, first.firstExecutionRunId);
  expect((await firstRun.describe()).status.name).toBe('TERMINATED');
  await replacement.terminate();
});

test('ID reuse policies apply to closed runs', async () => {
  const workflowId = harness.id('reuse');
  const run = (policy: WorkflowIdReusePolicy) =>
    harness.client.workflow.start('activitySequence', {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [1],
      workflowIdReusePolicy: policy,
    });
  await (await run(WorkflowIdReusePolicy.ALLOW_DUPLICATE)).result();
  await expect(run(WorkflowIdReusePolicy.REJECT_DUPLICATE)).rejects.toBeInstanceOf(
    WorkflowExecutionAlreadyStartedError
  );
  await expect(run(WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY)).rejects.toBeInstanceOf(
    WorkflowExecutionAlreadyStartedError
  );
  const second = await run(WorkflowIdReusePolicy.ALLOW_DUPLICATE);
  expect(await second.result()).toBe(1);
});

test('a repeated StartWorkflowExecution with the same requestId returns the same run', async () => {
  const request = {
    namespace: harness.temporal.namespace,
    workflowId: harness.id('dedupe'),
    workflowType: { name: 'waitForever' },
    taskQueue: { name: harness.taskQueue },
    requestId: randomUUID(),
  };
  const service = harness.client.workflowService;
  const first = await service.startWorkflowExecution(request);
  const second = await service.startWorkflowExecution(request);
  expect(second.runId).toBe(first.runId);
  await expect(service.startWorkflowExecution({ ...request, requestId: randomUUID() })).rejects.toMatchObject({
    code: 6,
  });
  await harness.client.workflow.getHandle(request.workflowId).terminate();
});

test('history pages through nextPageToken and matches the full history', async () => {
  const handle = await start<typeof activitySequence>('activitySequence', [5]);
  await handle.result();
  const full = await handle.fetchHistory();
  const ids: number[] = [];
  let nextPageToken: Uint8Array | undefined;
  let pages = 0;
  do {
    const response = await harness.client.workflowService.getWorkflowExecutionHistory({
      namespace: harness.temporal.namespace,
      execution: { workflowId: handle.workflowId },
      maximumPageSize: 7,
      nextPageToken,
    });
    ids.push(...(response.history?.events ?? []).map((e) => Number(e.eventId)));
    nextPageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
    pages++;
  } while (nextPageToken);
  expect(ids).toEqual((full.events ?? []).map((e) => Number(e.eventId)));
  // Our dev server counts maximumPageSize in events; the real server in event batches (the events
  // of one transaction), so its pages hold more events. Either way a client sees every event once.
  expect(pages).toBeGreaterThanOrEqual(usingRealServer ? 2 : Math.ceil(ids.length / 7));
});

test('a history long poll returns when a new event arrives', async () => {
  const handle = await start<typeof accumulator>('accumulator', [0]);
  const service = harness.client.workflowService;
  const namespace = harness.temporal.namespace;
  const execution = { workflowId: handle.workflowId };
  let response = await service.getWorkflowExecutionHistory({ namespace, execution, waitNewEvent: true });
  const seen = new Set((response.history?.events ?? []).map((e) => Number(e.eventId)));
  let sawSignal = false;
  const poll = (async () => {
    for (let i = 0; i < 20 && !sawSignal; i++) {
      response = await service.getWorkflowExecutionHistory({
        namespace,
        execution,
        waitNewEvent: true,
        nextPageToken: response.nextPageToken,
      });
      for (const event of response.history?.events ?? []) {
        expect(seen.has(Number(event.eventId))).toBe(false);
        seen.add(Number(event.eventId));
        if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED) sawSignal = true;
      }
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await handle.signal('add', 2);
  await poll;
  expect(sawSignal).toBe(true);
  await handle.signal('finish');
  expect(await handle.result()).toBe(2);
});

test('the CLOSE_EVENT filter waits for and returns only the close event', async () => {
  const handle = await start<typeof accumulator>('accumulator', [1]);
  const closing = harness.client.workflowService.getWorkflowExecutionHistory({
    namespace: harness.temporal.namespace,
    execution: { workflowId: handle.workflowId },
    waitNewEvent: true,
    historyEventFilterType: temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  await handle.signal('finish');
  const response = await closing;
  expect(response.history?.events?.map((e) => e.eventType)).toEqual([
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  ]);
  await harness.collect(handle);
});

test('signal-with-start starts once and signals the running workflow afterwards', async () => {
  const workflowId = harness.id('sws');
  const options = { taskQueue: harness.taskQueue, workflowId, args: [10] as [number], signalArgs: [5] as [number] };
  const first = await harness.client.workflow.signalWithStart('accumulator', { ...options, signal: 'add' });
  const second = await harness.client.workflow.signalWithStart('accumulator', { ...options, signal: 'add' });
  expect(second.signaledRunId).toBe(first.signaledRunId);
  await first.signal('finish');
  expect(await first.result()).toBe(20);
  const types = await eventTypes(first);
  expect(types.slice(0, 2)).toEqual(['WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_EXECUTION_SIGNALED']);
  await harness.collect(first);
});

test('continue-as-new chains runs that the client follows to the last result', async () => {
  const handle = await start<typeof continueAsNewCounter>('continueAsNewCounter', [3, 0]);
  expect(await handle.result()).toBe(3);
  const last = await harness.client.workflow.getHandle(handle.workflowId).describe();
  expect(last.runId).not.toBe(handle.firstExecutionRunId);
  expect(await eventTypes(harness.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId))).toContain(
    'WORKFLOW_EXECUTION_CONTINUED_AS_NEW'
  );
  await harness.collect(harness.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId));
  await harness.collect(handle);
});

test('patched() and local activities write markers and TemporalChangeVersion', async () => {
  const handle = await start<() => Promise<number>>('patchedWithLocalActivity', []);
  expect(await handle.result()).toBe(42);
  const types = await eventTypes(handle);
  expect(types.filter((t) => t === 'MARKER_RECORDED')).toHaveLength(2);
  expect(types).toContain('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES');
  await harness.collect(handle);
});

test('Worker.runReplayHistories accepts every history collected above', async () => {
  expect(harness.histories.length).toBeGreaterThanOrEqual(8);
  expect(await replayCollected(harness, 'basics')).toEqual([]);
});
