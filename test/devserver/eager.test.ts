/**
 * Eager dispatch, as a fake worker sees it on both servers (`npm run test:temporal` runs this on the
 * real one with the shipped dynamic config): an activity scheduled with `requestEagerExecution`
 * comes back, started, in the answer to the workflow task that scheduled it; a start that asks for
 * it gets the run's first workflow task in its answer; a completion that asks for it
 * (`returnNewWorkflowTask`) gets the workflow task it made necessary. Our dev server used to ignore
 * all three.
 */
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import type { Message } from '../../devserver/proto/types';
import { getTestTemporal, type TestTemporal } from '../support/temporal';
import { RawClient } from './raw-client';

const E = temporal.api.enums.v1;
const CONFLICT = E.WorkflowIdConflictPolicy;
jest.setTimeout(60_000);

let server: TestTemporal;
let raw: RawClient;
beforeAll(async () => {
  server = await getTestTemporal();
  raw = new RawClient(server.address);
});
afterAll(async () => {
  raw?.close();
  await server?.stop();
});

const identity = 'fake-worker@eager-test';

function scheduleActivity(activityId: string, taskQueue: string, eager = true): Message {
  return {
    commandType: E.CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
    scheduleActivityTaskCommandAttributes: {
      activityId,
      activityType: { name: 'echo' },
      taskQueue: { name: taskQueue },
      input: { payloads: [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"x"') }] },
      startToCloseTimeout: { seconds: 2 },
      retryPolicy: { initialInterval: { nanos: 100_000_000 }, maximumAttempts: 3 },
      requestEagerExecution: eager,
    },
  };
}

const COMPLETE_WORKFLOW: Message = {
  commandType: E.CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
  completeWorkflowExecutionCommandAttributes: {},
};

/** RespondWorkflowTaskCompleted as the fake worker. */
function completeTask(task: Message, commands: Message[], extra: Message = {}): Promise<Message> {
  return raw.call('RespondWorkflowTaskCompleted', {
    namespace: server.namespace,
    taskToken: task.taskToken,
    identity,
    commands,
    ...extra,
  });
}

async function startAndPoll(taskQueue: string): Promise<{ workflowId: string; task: Message }> {
  const workflowId = `eager-${randomUUID()}`;
  await raw.call('StartWorkflowExecution', {
    namespace: server.namespace,
    workflowId,
    workflowType: { name: 'anything' },
    taskQueue: { name: taskQueue },
    requestId: randomUUID(),
  });
  const task = await raw.call('PollWorkflowTaskQueue', {
    namespace: server.namespace,
    taskQueue: { name: taskQueue },
    identity,
  });
  return { workflowId, task };
}

async function eventsOf(workflowId: string): Promise<{ eventType: number; [key: string]: unknown }[]> {
  const history = await raw.call('GetWorkflowExecutionHistory', {
    namespace: server.namespace,
    execution: { workflowId },
  });
  return (history.history as { events: { eventType: number }[] }).events;
}

async function terminate(workflowId: string): Promise<void> {
  await raw.call('TerminateWorkflowExecution', { namespace: server.namespace, workflowExecution: { workflowId } });
}

test('an activity asked for eagerly comes back started in the workflow task answer, and completes', async () => {
  const taskQueue = `eager-${randomUUID()}`;
  const { workflowId, task } = await startAndPoll(taskQueue);
  const answer = await completeTask(task, [
    scheduleActivity('a1', taskQueue),
    scheduleActivity('a2', taskQueue, false),
  ]);
  const tasks = (answer.activityTasks ?? []) as Message[];
  expect(tasks.map((t) => t.activityId)).toEqual(['a1']);
  const [eager] = tasks as [Message];
  expect(eager).toMatchObject({ activityType: { name: 'echo' }, attempt: 1, workflowExecution: { workflowId } });
  expect(eager.taskToken).toBeDefined();
  expect((eager.input as { payloads: unknown[] }).payloads).toHaveLength(1);

  // The other one waits in the task queue for a poll.
  const polled = await raw.call('PollActivityTaskQueue', {
    namespace: server.namespace,
    taskQueue: { name: taskQueue },
    identity: 'another-worker',
  });
  expect(polled.activityId).toBe('a2');

  await raw.call('RespondActivityTaskCompleted', { namespace: server.namespace, taskToken: eager.taskToken, identity });
  const started = (await eventsOf(workflowId)).find(
    (e) => e.eventType === E.EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
  );
  expect(started?.activityTaskStartedEventAttributes).toMatchObject({ identity, attempt: 1 });
  await terminate(workflowId);
});

test('an activity of a run the same workflow task closed is not handed out', async () => {
  const taskQueue = `eager-${randomUUID()}`;
  const { workflowId, task } = await startAndPoll(taskQueue);
  const answer = await completeTask(task, [scheduleActivity('a1', taskQueue), COMPLETE_WORKFLOW]);
  expect(answer.activityTasks ?? []).toEqual([]);
  const types = (await eventsOf(workflowId)).map((e) => e.eventType);
  expect(types).toContain(E.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
});

test('an eager task the worker never runs times out and its retry goes through the task queue', async () => {
  const taskQueue = `eager-${randomUUID()}`;
  const { workflowId, task } = await startAndPoll(taskQueue);
  const answer = await completeTask(task, [scheduleActivity('lost', taskQueue)]);
  expect(((answer.activityTasks ?? []) as Message[]).map((t) => t.activityId)).toEqual(['lost']);
  // Start-to-close is 2 s; attempt 2 reaches a poller of the queue.
  const retried = await raw.call('PollActivityTaskQueue', {
    namespace: server.namespace,
    taskQueue: { name: taskQueue },
    identity: 'another-worker',
  });
  expect(retried).toMatchObject({ activityId: 'lost', attempt: 2 });
  await raw.call('RespondActivityTaskCompleted', { namespace: server.namespace, taskToken: retried.taskToken });
  const started = (await eventsOf(workflowId)).find(
    (e) => e.eventType === E.EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
  );
  expect(started?.activityTaskStartedEventAttributes).toMatchObject({ identity: 'another-worker', attempt: 2 });
  await terminate(workflowId);
});

test('a start that asks for it gets the first workflow task in its answer, started for its identity', async () => {
  const taskQueue = `eager-start-${randomUUID()}`;
  const workflowId = `eager-${randomUUID()}`;
  const answer = await raw.call('StartWorkflowExecution', {
    namespace: server.namespace,
    workflowId,
    workflowType: { name: 'anything' },
    taskQueue: { name: taskQueue },
    requestId: randomUUID(),
    identity,
    requestEagerExecution: true,
  });
  const task = answer.eagerWorkflowTask as Message;
  expect(task.taskToken).toBeDefined();
  expect(task.workflowExecution).toMatchObject({ workflowId, runId: answer.runId });
  const events = (task.history as { events: { eventType: number }[] }).events.map((e) => e.eventType);
  expect((task.history as { events: Message[] }).events[0]?.workflowExecutionStartedEventAttributes).toMatchObject({
    eagerExecutionAccepted: true,
  });
  expect(events).toEqual([
    E.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
    E.EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    E.EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  ]);
  await completeTask(task, [COMPLETE_WORKFLOW]);
  const history = await eventsOf(workflowId);
  const started = history.find((e) => e.eventType === E.EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  expect(started?.workflowTaskStartedEventAttributes).toMatchObject({ identity });
  expect(history.at(-1)?.eventType).toBe(E.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
});

test('a retried start gets the same task; one that resolves to the running run, or is delayed, gets none', async () => {
  const taskQueue = `eager-start-${randomUUID()}`;
  const workflowId = `eager-${randomUUID()}`;
  const requestId = randomUUID();
  const start = (extra: Message = {}) =>
    raw.call('StartWorkflowExecution', {
      namespace: server.namespace,
      workflowId,
      workflowType: { name: 'anything' },
      taskQueue: { name: taskQueue },
      requestId,
      identity,
      requestEagerExecution: true,
      ...extra,
    });
  const first = await start();
  const task = first.eagerWorkflowTask as Message;
  expect(task.startedEventId).toBe(3);
  // The same request again (its answer was lost): the same task, not started twice.
  const again = await start();
  expect(again.runId).toBe(first.runId);
  expect((again.eagerWorkflowTask as Message).startedEventId).toBe(3);
  expect((await eventsOf(workflowId)).map((e) => e.eventType)).toEqual([
    E.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
    E.EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    E.EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  ]);
  // Another start of the running ID that uses it: the run's task is not the caller's.
  const existing = await start({
    requestId: randomUUID(),
    workflowIdConflictPolicy: CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
  });
  expect(existing.runId).toBe(first.runId);
  expect(existing.eagerWorkflowTask ?? null).toBeNull();
  await terminate(workflowId);

  const delayed = await raw.call('StartWorkflowExecution', {
    namespace: server.namespace,
    workflowId: `eager-${randomUUID()}`,
    workflowType: { name: 'anything' },
    taskQueue: { name: taskQueue },
    requestId: randomUUID(),
    identity,
    requestEagerExecution: true,
    workflowStartDelay: { seconds: 30 },
  });
  expect(delayed.eagerWorkflowTask ?? null).toBeNull();
  // A negative delay is refused, eager or not, rather than read as none.
  await expect(
    raw.call('StartWorkflowExecution', {
      namespace: server.namespace,
      workflowId: `eager-${randomUUID()}`,
      workflowType: { name: 'anything' },
      taskQueue: { name: taskQueue },
      requestId: randomUUID(),
      requestEagerExecution: true,
      workflowStartDelay: { seconds: -5 },
    })
  ).rejects.toMatchObject({ code: 3 });
});

test('a completion that asks for it gets the workflow task it made necessary, with the history since its last', async () => {
  const taskQueue = `returned-${randomUUID()}`;
  const { workflowId, task } = await startAndPoll(taskQueue);
  const plain = await completeTask(task, [], { forceCreateNewWorkflowTask: true });
  expect(plain.workflowTask ?? null).toBeNull();
  const next = await raw.call('PollWorkflowTaskQueue', {
    namespace: server.namespace,
    taskQueue: { name: taskQueue },
    identity,
  });

  const answer = await completeTask(next, [], { forceCreateNewWorkflowTask: true, returnNewWorkflowTask: true });
  const returned = answer.workflowTask as Message;
  expect(returned).toMatchObject({ startedEventId: 9, previousStartedEventId: 6, attempt: 1 });
  const events = (returned.history as { events: { eventId: number; eventType: number }[] }).events;
  expect(events.map((e) => [e.eventId, e.eventType])).toEqual([
    [7, E.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED],
    [8, E.EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED],
    [9, E.EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED],
  ]);
  await completeTask(returned, [COMPLETE_WORKFLOW], { returnNewWorkflowTask: true });
  const history = await eventsOf(workflowId);
  const started = history.filter((e) => e.eventType === E.EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED).at(-1);
  expect(started?.workflowTaskStartedEventAttributes).toMatchObject({ identity });
  expect(history.at(-1)?.eventType).toBe(E.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
});
