/**
 * Differential conformance: what a client observes where our dev server and the real server
 * (`npm run test:temporal`) were suspected to differ (issue #16 item 4). Each test runs on both;
 * where they still differ, the expectation names both behaviours and docs/devserver.md says why.
 */
import { Context } from '@temporalio/activity';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { createHarness, eventTypes, eventually, usingRealServer, type Harness } from './harness';
import { rawUpdate as rawHoldUpdate } from './raw-client';
import type { continueAsNewCounter, pausableActivity, updateHolder } from './workflows';
import { finishSignal, holdUpdate, incrementUpdate, releaseSignal } from './workflows';

const E = temporal.api.enums.v1;
const cancellations: string[] = [];
const activities = {
  /** Attempt 1 heartbeats for `ms`; later attempts finish at once (a pause or reset must reach attempt 1 first). */
  async heartbeating(ms: number): Promise<string> {
    const context = Context.current();
    const end = Date.now() + (context.info.attempt === 1 ? ms : 0);
    try {
      while (Date.now() < end) {
        context.heartbeat();
        await context.sleep(100);
      }
    } catch (err) {
      cancellations.push(`${context.info.attempt}: ${(err as Error).message}`);
      throw err;
    }
    return `finished on attempt ${context.info.attempt}`;
  },
};

let harness: Harness;
jest.setTimeout(120_000);
beforeAll(async () => {
  harness = await createHarness(activities);
});
afterAll(async () => harness?.close());

/** One `hold` update with no client-side retries (the SDK's client retries RESOURCE_EXHAUSTED). */
function rawUpdate(workflowId: string, updateId: string, stage: 'ADMITTED' | 'ACCEPTED' = 'ACCEPTED') {
  return rawHoldUpdate(harness.temporal, { workflowId, updateId, name: holdUpdate.name }, stage);
}

test('an update rejected by its validator leaves no events: its speculative workflow task is dropped', async () => {
  const handle = await harness.client.workflow.start('accumulator', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('rejected-update'),
    args: [0],
  });
  await handle.executeUpdate(incrementUpdate, { args: [1] });
  const before = await eventTypes(handle);
  await expect(handle.executeUpdate(incrementUpdate, { args: [-1] })).rejects.toThrow();
  const added = (await eventTypes(handle)).slice(before.length);
  expect(added).toEqual([]);
  // The worker's cache saw the dropped task's events; the next task and an accepted update still work.
  await handle.executeUpdate(incrementUpdate, { args: [2] });
  await handle.signal(finishSignal);
  expect(await handle.result()).toBe(3);
  // The accepted update's task is written as usual.
  expect((await eventTypes(handle)).slice(before.length, before.length + 4)).toEqual([
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_COMPLETED',
    'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
  ]);
});

test('the 11th in-flight update of one execution is refused with RESOURCE_EXHAUSTED (history.maxInFlightUpdates)', async () => {
  const handle = await harness.client.workflow.start<typeof updateHolder>('updateHolder', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('in-flight'),
  });
  const held = await Promise.all(
    Array.from({ length: 10 }, (_, i) => handle.startUpdate(holdUpdate, { args: [i], waitForStage: 'ACCEPTED' }))
  );
  await expect(rawUpdate(handle.workflowId, 'eleventh')).rejects.toMatchObject({
    code: 8,
    details: 'limit on number of concurrent in-flight updates has been reached (10)',
  });
  // Waiting for ADMITTED only is refused before the limit is looked at.
  await expect(rawUpdate(handle.workflowId, 'admitted-only', 'ADMITTED')).rejects.toMatchObject({
    code: 7,
    details: 'UpdateWorkflowExecution issued asynchronously and waiting on update admitted is not supported.',
  });
  await handle.signal(releaseSignal);
  expect(await Promise.all(held.map((u) => u.result()))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  await expect(handle.executeUpdate(holdUpdate, { args: [10] })).resolves.toBe(10);
  await handle.signal(finishSignal);
  expect(await handle.result()).toBe(11);
});

test('a workflow ID is reusable at once: server 1.29 does not enforce workflowIdReuseMinimalInterval on start', async () => {
  const workflowId = harness.id('reuse');
  const options = { taskQueue: harness.taskQueue, workflowId, args: [0] };
  const first = await harness.client.workflow.start('accumulator', options);
  await first.signal(finishSignal);
  await first.result();
  const again = await harness.client.workflow.start('accumulator', {
    ...options,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
  // Nor on TERMINATE_EXISTING right after that start (history.enableWorkflowIdReuseStartTimeValidation is off).
  const third = await harness.client.workflow.start('accumulator', {
    ...options,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.TERMINATE_EXISTING,
  });
  expect(third.firstExecutionRunId).not.toBe(again.firstExecutionRunId);
  const previous = harness.client.workflow.getHandle(workflowId, again.firstExecutionRunId);
  expect((await previous.describe()).status.name).toBe('TERMINATED');
  await third.signal(finishSignal);
  await third.result();
});

test('continue-as-new sooner than workflowIdReuseMinimalInterval (1 s) after a run began holds the next run back', async () => {
  const handle = await harness.client.workflow.start<typeof continueAsNewCounter>('continueAsNewCounter', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('can-interval'),
    args: [1, 0],
  });
  expect(await handle.result()).toBe(1);
  const first = (await harness.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory())
    .events;
  const second = (await harness.client.workflow.getHandle(handle.workflowId).fetchHistory()).events;
  const ms = (value: Parameters<typeof tsToMs>[0]) => (value ? tsToMs(value) : 0);
  const millis = (event: NonNullable<typeof first>[number] | undefined) => ms(event?.eventTime);
  // lifetime: from the first run's start to its ContinuedAsNew; the server adds (1 s - lifetime) of backoff.
  const lifetime = millis(first?.at(-1)) - millis(first?.[0]);
  const backoff = ms(second?.[0]?.workflowExecutionStartedEventAttributes?.firstWorkflowTaskBackoff);
  if (lifetime >= 1000) expect(backoff).toBe(0);
  else expect(Math.abs(backoff - (1000 - lifetime))).toBeLessThanOrEqual(50);
  // The successor's first workflow task is scheduled only once the backoff has passed.
  expect(second?.[1]?.eventType).toBe(E.EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
  expect(millis(second?.[1]) - millis(second?.[0])).toBeGreaterThanOrEqual(backoff - 50);
});

test('a Datetime search attribute round-trips at millisecond precision through describe and list', async () => {
  const key = defineSearchAttributeKey('DifferentialDatetime', SearchAttributeType.DATETIME);
  await harness.client.connection.operatorService
    .addSearchAttributes({
      namespace: harness.temporal.namespace,
      searchAttributes: { [key.name]: E.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME },
    })
    .catch((err: { code?: number }) => {
      if (err.code !== 6) throw err; // ALREADY_EXISTS from an earlier run on the same server
    });
  const handle = await harness.client.workflow.start('datetimeUpserter', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('datetime'),
    args: [key.name, '2024-01-02T03:04:05.678Z'],
    typedSearchAttributes: [{ key, value: new Date('2030-05-06T07:08:09.123Z') }],
  });
  const stored = async () => {
    const info = (await handle.describe()).raw.workflowExecutionInfo;
    return Buffer.from(info?.searchAttributes?.indexedFields?.[key.name]?.data ?? []).toString();
  };
  expect(await stored()).toBe('"2030-05-06T07:08:09.123Z"');
  await eventually(async () => {
    expect((await handle.describe()).typedSearchAttributes.get(key)?.toISOString()).toBe('2024-01-02T03:04:05.678Z');
    expect(await stored()).toBe('"2024-01-02T03:04:05.678Z"');
    const listed = [];
    for await (const w of harness.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` }))
      listed.push(w);
    expect(listed[0]?.typedSearchAttributes.get(key)?.toISOString()).toBe('2024-01-02T03:04:05.678Z');
  });
  await handle.signal(finishSignal);
  await handle.result();
});

/**
 * Starts `pausableActivity` and waits until its first attempt is running. That attempt outlives the SDK's
 * heartbeat throttle (4 s, 80% of the 5 s heartbeat timeout) several times over, so a pause or reset always
 * reaches it on a slow machine too.
 */
async function startPausable(label: string) {
  const handle = await harness.client.workflow.start<typeof pausableActivity>('pausableActivity', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id(label),
    args: [30_000],
  });
  await eventually(async () => {
    const d = await handle.describe();
    expect(d.raw.pendingActivities?.[0]?.state).toBe(E.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);
  });
  return { handle, request: { namespace: harness.temporal.namespace, execution: { workflowId: handle.workflowId } } };
}

test('PauseActivity: PAUSED with the pause info; the running attempt is cancelled PAUSED and fails ActivityPause', async () => {
  const { handle, request } = await startPausable('pause');
  await harness.client.workflowService.pauseActivity({ ...request, id: '1', identity: 'sre', reason: 'differential' });
  await eventually(async () => {
    const pending = (await handle.describe()).raw.pendingActivities?.[0];
    expect(pending).toMatchObject({ state: E.PendingActivityState.PENDING_ACTIVITY_STATE_PAUSED, paused: true });
    expect(pending?.pauseInfo?.manual).toMatchObject({ identity: 'sre', reason: 'differential' });
    // The SDK reports the paused attempt as a failure; the next attempt waits for unpause.
    expect(pending?.lastFailure?.applicationFailureInfo?.type).toBe('ActivityPause');
    expect(pending?.attempt).toBe(2);
    expect(cancellations).toContain('1: PAUSED');
    // The SDK throttles heartbeats to 80% of the 5 s heartbeat timeout: the pause may take that long to arrive.
  }, 30_000);
  // Pausing again is a no-op; an unknown activity is NOT_FOUND.
  await harness.client.workflowService.pauseActivity({ ...request, id: '1', reason: 'again' });
  expect((await handle.describe()).raw.pendingActivities?.[0]?.pauseInfo?.manual?.reason).toBe('differential');
  await expect(harness.client.workflowService.pauseActivity({ ...request, id: 'no-such' })).rejects.toMatchObject({
    code: 5,
  });
  await harness.client.workflowService.unpauseActivity({ ...request, id: '1' });
  expect(await handle.result()).toBe('finished on attempt 2');
  expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_FAILED');
});

test('ResetActivity on a running attempt: cancelled RESET at its next heartbeat, the next attempt runs at once', async () => {
  const { handle, request } = await startPausable('reset');
  await harness.client.workflowService.resetActivity({ ...request, id: '1' });
  expect(await handle.result()).toBe('finished on attempt 2');
  expect(cancellations).toContain('1: RESET');
});

test('custom search attributes: ours predefines the CustomXxxField set, start-dev 1.29 registers none', async () => {
  const listed = await harness.client.connection.operatorService.listSearchAttributes({
    namespace: harness.temporal.namespace,
  });
  expect(Object.keys(listed.customAttributes ?? {}).includes('CustomKeywordField')).toBe(!usingRealServer);
});
