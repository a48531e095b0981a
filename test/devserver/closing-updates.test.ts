/**
 * Conformance: updates and events that reach a run while the workflow task that closes it runs, and updates
 * still in flight when a run closes. Server 1.29 refuses such a close (UNHANDLED_COMMAND) only for new events
 * (a signal): its check for admitted updates is commented out (`respondworkflowtaskcompleted/api.go`), and the
 * close aborts the run's updates (`update/abort_reason.go`): one not yet accepted gets NOT_FOUND "workflow
 * update was aborted by closing workflow" (RESOURCE_EXHAUSTED BUSY_WORKFLOW when a new run follows, which the
 * client retries), one accepted gets the failure AcceptedUpdateCompletedWorkflow as its outcome.
 */
import { Context } from '@temporalio/activity';
import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createHarness, eventTypes, eventually, type Harness } from './harness';
import { rawUpdate as rawHoldUpdate } from './raw-client';
import type { closesAfterLocalActivity, updateHolder } from './workflows';
import { finishSignal, holdUpdate, releaseSignal } from './workflows';

const E = temporal.api.enums.v1;
/** Long enough for a signal or an update sent once it started to reach the run before its task completes. */
const LOCAL_ACTIVITY_MS = 2000;
/** Local activity runs per workflow ID. */
const slowRuns = new Map<string, number>();
const activities = {
  async slow(ms: number): Promise<string> {
    const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
    slowRuns.set(workflowId, (slowRuns.get(workflowId) ?? 0) + 1);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return `slept ${ms} ms`;
  },
};

let harness: Harness;
jest.setTimeout(60_000);
beforeAll(async () => {
  harness = await createHarness(activities);
});
afterAll(async () => harness?.close());

/** Starts the workflow and waits until its first task runs the local activity. */
async function startClosing(label: string, close: 'fail' | 'continue') {
  const handle = await harness.client.workflow.start<typeof closesAfterLocalActivity>('closesAfterLocalActivity', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id(label),
    args: [LOCAL_ACTIVITY_MS, close],
  });
  await eventually(async () => expect(slowRuns.get(handle.workflowId)).toBe(1), 10_000, 10);
  return handle;
}

/** One `hold` update waiting for its outcome, with no client-side retries. */
function rawUpdate(workflowId: string, updateId: string) {
  return rawHoldUpdate(harness.temporal, { workflowId, updateId, name: holdUpdate.name }, 'COMPLETED');
}

test('an update arriving while the task that fails the run runs does not stop the fail: it is aborted, NOT_FOUND', async () => {
  const handle = await startClosing('update-while-failing', 'fail');
  const raw = rawUpdate(handle.workflowId, 'raw').catch((e: unknown) => e);
  const viaClient = handle.executeUpdate(holdUpdate, { args: [1] }).catch((e: unknown) => e);
  expect(await raw).toMatchObject({ code: 5, details: 'workflow update was aborted by closing workflow' });
  const refused = await viaClient;
  expect(refused).toBeInstanceOf(WorkflowNotFoundError);
  expect((refused as Error).message).toBe('workflow update was aborted by closing workflow');
  await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  expect(await eventTypes(handle)).toEqual([
    'WORKFLOW_EXECUTION_STARTED',
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_COMPLETED',
    'MARKER_RECORDED',
    'WORKFLOW_EXECUTION_FAILED',
  ]);
  expect(slowRuns.get(handle.workflowId)).toBe(1);
});

test('a signal arriving while the task that fails the run runs makes the fail UNHANDLED_COMMAND; the retry reruns the local activity', async () => {
  const handle = await startClosing('signal-while-failing', 'fail');
  await handle.signal(releaseSignal);
  await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  const events = (await handle.fetchHistory()).events ?? [];
  const failedCauses = events.flatMap((e) =>
    e.workflowTaskFailedEventAttributes ? [e.workflowTaskFailedEventAttributes.cause] : []
  );
  expect(failedCauses).toEqual([E.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND]);
  expect(slowRuns.get(handle.workflowId)).toBe(2);
});

test('an update arriving while the task that continues the run as new runs is refused RESOURCE_EXHAUSTED (BUSY_WORKFLOW)', async () => {
  const handle = await startClosing('update-while-continuing', 'continue');
  await expect(rawUpdate(handle.workflowId, 'raw')).rejects.toMatchObject({
    code: 8,
    details: 'workflow operation can not be applied because workflow is closing',
  });
  expect(await handle.result()).toBe(0);
  expect(
    (await eventTypes(harness.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId))).at(-1)
  ).toBe('WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
});

test('an accepted update still running when its workflow completes fails with AcceptedUpdateCompletedWorkflow', async () => {
  const handle = await harness.client.workflow.start<typeof updateHolder>('updateHolder', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('accepted-at-close'),
  });
  const held = await handle.startUpdate(holdUpdate, { args: [7], waitForStage: 'ACCEPTED' });
  await handle.signal(finishSignal);
  expect(await handle.result()).toBe(1);
  const failed = await held.result().catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (failed as WorkflowUpdateFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect(cause).toMatchObject({
    type: 'AcceptedUpdateCompletedWorkflow',
    nonRetryable: true,
    message: 'Workflow Update failed because the Workflow completed before the Update completed.',
  });
  expect(await eventTypes(handle)).not.toContain('WORKFLOW_EXECUTION_UPDATE_COMPLETED');
});
