/**
 * Conformance: signals, queries (open and closed runs, unknown types, reject conditions),
 * updates (accepted, rejected by the validator, polled for their result, update-with-start) and
 * describe.
 */
import {
  Client,
  QueryNotRegisteredError,
  QueryRejectCondition,
  QueryRejectedError,
  WithStartWorkflowOperation,
  WorkflowIdConflictPolicy,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { createHarness, eventTypes, replayCollected, type Harness } from './harness';
import { addSignal, finishSignal, incrementUpdate, totalQuery, type accumulator } from './workflows';

let harness: Harness;

// Jest only honours testTimeout globally, not per project.
jest.setTimeout(60_000);

beforeAll(async () => {
  harness = await createHarness({ echo: async (value: number) => value });
});

afterAll(async () => {
  await harness?.close();
});

function startAccumulator(initial: number) {
  return harness.client.workflow.start<typeof accumulator>('accumulator', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('accumulator'),
    args: [initial],
  });
}

test('signals are delivered in order and queries read the state', async () => {
  const handle = await startAccumulator(1);
  await handle.signal(addSignal, 2);
  await handle.signal(addSignal, 3);
  expect(await handle.query(totalQuery)).toBe(6);
  const description = await handle.describe();
  expect(description.status.name).toBe('RUNNING');
  expect(description.type).toBe('accumulator');
  expect(description.taskQueue).toBe(harness.taskQueue);
  await handle.signal(finishSignal);
  expect(await handle.result()).toBe(6);
  const types = await eventTypes(handle);
  expect(types.filter((t) => t === 'WORKFLOW_EXECUTION_SIGNALED')).toHaveLength(3);
  await harness.collect(handle);
});

test('a closed workflow can still be queried, unless the reject condition says otherwise', async () => {
  const handle = await startAccumulator(7);
  await handle.signal(finishSignal);
  await handle.result();
  expect(await handle.query(totalQuery)).toBe(7);
  const rejectingClient = new Client({
    connection: harness.client.connection,
    namespace: harness.temporal.namespace,
    workflow: { queryRejectCondition: QueryRejectCondition.NOT_OPEN },
  });
  const rejection = await rejectingClient.workflow
    .getHandle(handle.workflowId)
    .query(totalQuery)
    .catch((e: unknown) => e);
  expect(rejection).toBeInstanceOf(QueryRejectedError);
  expect((rejection as QueryRejectedError).status).toBe(
    temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED
  );
});

test('querying an unknown query type fails with QueryNotRegisteredError', async () => {
  const handle = await startAccumulator(0);
  await expect(handle.query('no-such-query')).rejects.toBeInstanceOf(QueryNotRegisteredError);
  await handle.signal(finishSignal);
  await handle.result();
});

test('concurrent queries racing workflow tasks are all answered (none dropped by the worker)', async () => {
  for (let round = 0; round < 3; round++) {
    const handle = await startAccumulator(0);
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        await handle.signal(addSignal, 1);
        // A dropped query would hang until the server's long-poll limit; fail fast instead.
        return harness.client.withDeadline(Date.now() + 10_000, () => handle.query(totalQuery));
      })
    );
    expect(answers.every((total) => total >= 1 && total <= 20)).toBe(true);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(20);
    if (round === 0) await harness.collect(handle);
  }
});

test('an update is accepted, runs and returns; the validator rejects bad input without history', async () => {
  const handle = await startAccumulator(1);
  expect(await handle.executeUpdate(incrementUpdate, { args: [10] })).toBe(11);
  const rejection = await handle.executeUpdate(incrementUpdate, { args: [-5] }).catch((e: unknown) => e);
  expect(rejection).toBeInstanceOf(WorkflowUpdateFailedError);
  expect((rejection as WorkflowUpdateFailedError).cause?.message).toContain('must not be negative');
  const started = await handle.startUpdate(incrementUpdate, { args: [4], waitForStage: 'ACCEPTED' });
  expect(await started.result()).toBe(15);
  await handle.signal(finishSignal);
  expect(await handle.result()).toBe(15);
  const types = await eventTypes(handle);
  expect(types.filter((t) => t === 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED')).toHaveLength(2);
  expect(types.filter((t) => t === 'WORKFLOW_EXECUTION_UPDATE_COMPLETED')).toHaveLength(2);
  await harness.collect(handle);
});

test('an update with an existing update ID returns the first outcome', async () => {
  const handle = await startAccumulator(0);
  const first = await handle.executeUpdate(incrementUpdate, { args: [3], updateId: 'same-update' });
  const again = await handle.executeUpdate(incrementUpdate, { args: [3], updateId: 'same-update' });
  expect([first, again]).toEqual([3, 3]);
  expect(await handle.query(totalQuery)).toBe(3);
  await handle.signal(finishSignal);
  await handle.result();
  await harness.collect(handle);
});

test('update-with-start starts the workflow and runs the update', async () => {
  const startOperation = new WithStartWorkflowOperation('accumulator', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('update-with-start'),
    args: [100],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
  const result = await harness.client.workflow.executeUpdateWithStart(incrementUpdate, {
    args: [1],
    startWorkflowOperation: startOperation,
  });
  expect(result).toBe(101);
  const handle = await startOperation.workflowHandle();
  await handle.signal(finishSignal);
  expect(await handle.result()).toBe(101);
  await harness.collect(handle);
});

test('Worker.runReplayHistories accepts every history collected above', async () => {
  expect(harness.histories.length).toBeGreaterThanOrEqual(5);
  expect(await replayCollected(harness, 'messages')).toEqual([]);
});
