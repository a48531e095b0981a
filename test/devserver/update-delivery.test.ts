/**
 * Conformance, with a fake worker (fake-worker.ts) on both servers: what becomes of an update the worker received
 * but did not answer, of one sent with a workflow task whose completion the server refuses, and of an update ID
 * asked again once its run has closed (server 1.29: `update/registry.go`, `update/abort_reason.go`,
 * `respondworkflowtaskcompleted/`, `updateworkflow/api.go`).
 */
import { temporal } from '@temporalio/proto';
import type { Message } from '../../devserver/proto/types';
import { getTestTemporal, type TestTemporal } from '../support/temporal';
import {
  answerUpdate,
  COMPLETE_WORKFLOW,
  FakeWorker,
  jsonPayloads,
  updateRequests,
  type UpdateAnswer,
} from './fake-worker';
import { RawClient } from './raw-client';

const STAGE = temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage;
const COMPLETED = STAGE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED;
const ACCEPTED = STAGE.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED;
jest.setTimeout(60_000);

let server: TestTemporal;
/** A fresh task queue per test: a task one test leaves behind must not reach the next. */
let worker: FakeWorker;
beforeAll(async () => {
  server = await getTestTemporal();
});
beforeEach(() => {
  worker = new FakeWorker(server);
});
afterEach(() => worker.close());
afterAll(async () => server?.stop());

/** One UpdateWorkflowExecution call, with no client-side retries; fails after `withinMs` rather than hang. */
async function update(workflowId: string, updateId: string, stage = COMPLETED, withinMs = 10_000): Promise<Message> {
  const raw = new RawClient(server.address);
  const call = raw.start('UpdateWorkflowExecution', {
    namespace: server.namespace,
    workflowExecution: { workflowId },
    request: { meta: { updateId }, input: { name: 'hold', args: jsonPayloads(1) } },
    waitPolicy: { lifecycleStage: stage },
  });
  const timer = setTimeout(() => call.cancel(), withinMs);
  try {
    return await call.response;
  } finally {
    clearTimeout(timer);
    raw.close();
  }
}

/**
 * `update`, sent again while the server answers RESOURCE_EXHAUSTED, as the SDK client does: the real server
 * refuses an update that reaches a run while the task after a refused close runs (`updateworkflow/api.go`).
 */
async function updateAsClient(workflowId: string, updateId: string): Promise<Message> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await update(workflowId, updateId);
    } catch (error) {
      if ((error as { code?: number }).code !== 8 || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function pollUpdate(workflowId: string, updateId: string): Promise<Message> {
  return worker.raw.call('PollWorkflowExecutionUpdate', {
    namespace: server.namespace,
    updateRef: { workflowExecution: { workflowId }, updateId },
    waitPolicy: { lifecycleStage: COMPLETED },
  });
}

/** Starts a run and completes its first workflow task with no command: the run stays open, with no task. */
async function startIdle(label: string): Promise<string> {
  const workflowId = await worker.start(label);
  await worker.complete(await worker.poll(), []);
  return workflowId;
}

/** Polls the task that carries update `updateId` and answers it. */
async function answerNext(updateId: string, answer: UpdateAnswer, extraCommands: Message[] = []): Promise<void> {
  const task = await worker.poll();
  const [request] = updateRequests(task);
  expect(request?.updateId).toBe(updateId);
  const { messages, commands } = answerUpdate(request!, answer);
  await worker.complete(task, [...commands, ...extraCommands], { messages });
}

const START_TIMER: Message = {
  commandType: temporal.api.enums.v1.CommandType.COMMAND_TYPE_START_TIMER,
  startTimerCommandAttributes: { timerId: 't1', startToFireTimeout: { seconds: 600 } },
};

const UNPROCESSED = {
  message:
    "Workflow Update is rejected because it wasn't processed by worker. Probably, Workflow Update is not supported by the worker.",
  source: 'Server',
  applicationFailureInfo: { type: 'UnprocessedUpdate', nonRetryable: true },
};

test('an update the worker received but left unanswered in its completion is rejected UnprocessedUpdate', async () => {
  const workflowId = await startIdle('unprocessed');
  const ignored = update(workflowId, 'ignored');
  const task = await worker.poll();
  expect(updateRequests(task).map((r) => r.updateId)).toEqual(['ignored']);
  const answer = await worker.complete(task, []);
  expect(await ignored).toMatchObject({ stage: COMPLETED, outcome: { failure: UNPROCESSED } });
  // A speculative task with nothing but unanswered updates is dropped, as one that only rejects them.
  expect(Number(answer.resetHistoryEventId)).toBe(3);
  const before = ['WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED'];
  expect(await worker.eventTypes(workflowId)).toEqual([...before, 'WORKFLOW_TASK_COMPLETED']);

  // With a command, the task is recorded and the update still rejected; with a close, the update is aborted.
  const alsoIgnored = update(workflowId, 'also-ignored');
  const withTimer = await worker.poll();
  expect(updateRequests(withTimer).map((r) => r.updateId)).toEqual(['also-ignored']);
  await worker.complete(withTimer, [START_TIMER]);
  expect(await alsoIgnored).toMatchObject({ stage: COMPLETED, outcome: { failure: UNPROCESSED } });
  const closing = update(workflowId, 'closing');
  const withClose = await worker.poll();
  expect(updateRequests(withClose).map((r) => r.updateId)).toEqual(['closing']);
  await worker.complete(withClose, [COMPLETE_WORKFLOW]);
  await expect(closing).rejects.toMatchObject({ code: 5, details: 'workflow update was aborted by closing workflow' });
  expect((await worker.eventTypes(workflowId)).slice(4)).toEqual([
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_COMPLETED',
    'TIMER_STARTED',
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_COMPLETED',
    'WORKFLOW_EXECUTION_COMPLETED',
  ]);
});

test('a completion the server refuses aborts the updates it carried (FAILED_PRECONDITION); one that came later reaches the next task', async () => {
  const workflowId = await startIdle('refused');
  const carried = update(workflowId, 'carried').catch((e: unknown) => e);
  const task = await worker.poll();
  const [request] = updateRequests(task);
  expect(request?.updateId).toBe('carried');
  // Admitted while the task runs, `later` is retried inside the server after the refusal; if the next task has
  // started by then, the real server refuses it as "workflow is closing" (next test), and the client sends it again.
  const later = updateAsClient(workflowId, 'later');
  await worker.signal(workflowId, 'meanwhile');
  await new Promise((resolve) => setTimeout(resolve, 300));
  // The signal makes the close UNHANDLED_COMMAND, and the acceptance of `carried` is dropped with it.
  const { messages, commands } = answerUpdate(request!, { accept: true, result: 'never' });
  await expect(worker.complete(task, [...commands, COMPLETE_WORKFLOW], { messages })).rejects.toMatchObject({
    code: 3,
  });
  expect(await carried).toMatchObject({
    code: 9,
    details: 'Unable to perform workflow execution update due to unexpected workflow task failure.',
  });
  const seen: string[] = [];
  for (let round = 0; round < 3 && !seen.includes('later'); round++) {
    const next = await worker.poll();
    const answers = updateRequests(next).map((r) => answerUpdate(r, { accept: true, result: r.updateId }));
    seen.push(...updateRequests(next).map((r) => r.updateId));
    await worker.complete(
      next,
      answers.flatMap((a) => a.commands),
      { messages: answers.flatMap((a) => a.messages) }
    );
  }
  expect(seen).toEqual(['later']);
  expect(await later).toMatchObject({ stage: COMPLETED, outcome: { success: jsonPayloads('later') } });
  const types = await worker.eventTypes(workflowId);
  expect(types).toContain('WORKFLOW_TASK_FAILED');
  expect(types.filter((t) => t === 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED')).toHaveLength(1);
});

const CLOSING = { code: 8, details: 'workflow operation can not be applied because workflow is closing' };

test('while the task after a refused close runs, signals and updates are refused as "workflow is closing"; after it, taken', async () => {
  const workflowId = await startIdle('closing');
  await worker.signal(workflowId, 'first');
  const closingTask = await worker.poll();
  await worker.signal(workflowId, 'meanwhile');
  await expect(worker.complete(closingTask, [COMPLETE_WORKFLOW])).rejects.toMatchObject({ code: 3 });
  const next = await worker.poll();
  await expect(worker.signal(workflowId, 'during')).rejects.toMatchObject(CLOSING);
  await expect(worker.signalWithStart(workflowId, 'during')).rejects.toMatchObject(CLOSING);
  await expect(update(workflowId, 'during')).rejects.toMatchObject(CLOSING);
  // The refused update drops the server's cached run, and the flag with it: the client's next try is admitted.
  const retried = update(workflowId, 'retried');
  await worker.signal(workflowId, 'after');
  await worker.complete(next, []);
  // No call tells when an update was admitted: it reaches the task the signal made, or the one after it.
  for (let round = 0; round < 2; round++) {
    const task = await worker.poll();
    const [request] = updateRequests(task);
    if (!request) {
      await worker.complete(task, []);
      continue;
    }
    const { messages, commands } = answerUpdate(request, { accept: true, result: 'taken' });
    await worker.complete(task, commands, { messages });
    break;
  }
  expect(await retried).toMatchObject({ stage: COMPLETED, outcome: { success: jsonPayloads('taken') } });
  const types = await worker.eventTypes(workflowId);
  expect(types.filter((t) => t === 'WORKFLOW_EXECUTION_SIGNALED')).toHaveLength(3);
  expect(types).toContain('WORKFLOW_TASK_FAILED');
});

test('an update to a run whose workflow task keeps failing is refused at once from its third attempt', async () => {
  const workflowId = await worker.start('failing');
  await worker.fail(await worker.poll());
  const second = await worker.poll();
  expect(Number(second.attempt)).toBe(2);
  await worker.fail(second);
  const failing = {
    code: 9,
    details: 'Unable to perform workflow execution update due to Workflow Task in failed state.',
  };
  await expect(update(workflowId, 'refused')).rejects.toMatchObject(failing);
  const third = await worker.poll();
  expect(Number(third.attempt)).toBe(3);
  await expect(update(workflowId, 'refused')).rejects.toMatchObject(failing);
  await worker.complete(third, []);

  const taken = update(workflowId, 'taken');
  await answerNext('taken', { accept: true, result: 'ok' });
  expect(await taken).toMatchObject({ stage: COMPLETED, outcome: { success: jsonPayloads('ok') } });
});

test('an update ID asked again once its run closed gets the outcome history recorded, else NOT_FOUND', async () => {
  const workflowId = await startIdle('repeat-after-close');
  const done = update(workflowId, 'done');
  await answerNext('done', { accept: true, result: 'first answer' });
  expect(await done).toMatchObject({ stage: COMPLETED, outcome: { success: jsonPayloads('first answer') } });
  const accepted = update(workflowId, 'accepted', ACCEPTED);
  await answerNext('accepted', { accept: true });
  expect(await accepted).toMatchObject({ stage: ACCEPTED });
  const rejected = update(workflowId, 'rejected');
  await answerNext('rejected', { reject: 'no' });
  expect(await rejected).toMatchObject({ stage: COMPLETED, outcome: { failure: { message: 'no' } } });
  // A rejection is not kept: the same ID again is a new update, delivered to the worker again.
  const again = update(workflowId, 'rejected');
  await answerNext('rejected', { reject: 'still no' });
  expect(await again).toMatchObject({ stage: COMPLETED, outcome: { failure: { message: 'still no' } } });
  await worker.signal(workflowId, 'finish');
  await worker.complete(await worker.poll(), [COMPLETE_WORKFLOW]);

  expect(await update(workflowId, 'done')).toMatchObject({
    stage: COMPLETED,
    outcome: { success: jsonPayloads('first answer') },
  });
  expect(await pollUpdate(workflowId, 'done')).toMatchObject({ outcome: { success: jsonPayloads('first answer') } });
  expect(await update(workflowId, 'accepted')).toMatchObject({
    stage: COMPLETED,
    outcome: { failure: { applicationFailureInfo: { type: 'AcceptedUpdateCompletedWorkflow' } } },
  });
  // Nor once the run closed: the server answers as for an ID it never saw.
  const closed = { code: 5, details: 'workflow execution already completed' };
  await expect(update(workflowId, 'rejected')).rejects.toMatchObject(closed);
  await expect(update(workflowId, 'never-sent')).rejects.toMatchObject(closed);
  await expect(pollUpdate(workflowId, 'rejected')).rejects.toMatchObject({
    code: 5,
    details: 'update "rejected" not found',
  });
});

test('an answer for an update the server no longer holds brings it back from the request it carries', async () => {
  const workflowId = await startIdle('resurrected');
  const ignored = update(workflowId, 'ignored');
  const task = await worker.poll();
  const [request] = updateRequests(task);
  await worker.complete(task, []);
  expect(await ignored).toMatchObject({ outcome: { failure: UNPROCESSED } });
  // The worker answers it late, with the next task: the server takes the request from the acceptance.
  await worker.signal(workflowId, 'wake');
  const { messages, commands } = answerUpdate(request!, { accept: true, result: 'late' });
  await worker.complete(await worker.poll(), [...commands, COMPLETE_WORKFLOW], { messages });
  expect((await worker.eventTypes(workflowId)).slice(-4)).toEqual([
    'WORKFLOW_TASK_COMPLETED',
    'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
    'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
    'WORKFLOW_EXECUTION_COMPLETED',
  ]);
  expect(await update(workflowId, 'ignored')).toMatchObject({ outcome: { success: jsonPayloads('late') } });
});
