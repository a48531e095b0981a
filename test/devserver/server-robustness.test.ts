/**
 * The embedded dev server answers any input with a status and keeps serving: malformed or unknown
 * requests, unsupported RPCs and commands, too many in-flight updates, and a completion with an
 * invalid command, which is rejected whole.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection, NamespaceNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startDevServer } from '../../devserver';
import { eventually } from './harness';
import { useOwnDevServer, withWorker, startAndTakeFirstTask } from './own-server';
import { RawClient } from './raw-client';

const E = temporal.api.enums.v1;
const own = useOwnDevServer();

// Jest only honours testTimeout globally, not per project.
jest.setTimeout(60_000);

describe('robustness', () => {
  test('every RPC answers a status for empty and garbage requests, and the server keeps serving', async () => {
    const codes = new Set<number>();
    for (const method of own.raw.methods.keys()) {
      for (const request of [
        {},
        { namespace: 'default' },
        randomBytes(64),
        Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]),
      ]) {
        const outcome = await own.raw.call(method, request).then(
          () => 0,
          (error: { code: number }) => error.code
        );
        codes.add(outcome);
      }
    }
    expect(own.internalErrors).toEqual([]);
    expect(codes.has(13)).toBe(false);
    expect(codes.has(2)).toBe(false);
    expect((await own.raw.call('GetSystemInfo', {})).capabilities).toBeDefined();
  });

  test('an unsupported RPC answers UNIMPLEMENTED naming the method', async () => {
    await expect(own.raw.call('CreateSchedule', { namespace: 'default' })).rejects.toMatchObject({
      code: 12,
      details: expect.stringContaining('CreateSchedule'),
    });
  });

  test('RegisterNamespace of another namespace reaches its handler: unsupported, not NOT_FOUND', async () => {
    await expect(own.raw.call('RegisterNamespace', { namespace: 'sweepb' })).rejects.toMatchObject({
      code: 12,
      details: expect.stringContaining('serves a single namespace, default'),
    });
    await expect(own.raw.call('RegisterNamespace', { namespace: 'default' })).rejects.toMatchObject({ code: 6 });
    await expect(own.raw.call('DescribeNamespace', { namespace: 'sweepb' })).rejects.toMatchObject({ code: 5 });
  });

  test('malformed bytes answer INVALID_ARGUMENT; unknown entities answer NOT_FOUND', async () => {
    await expect(own.raw.call('StartWorkflowExecution', Buffer.from([0x0a, 0xff]))).rejects.toMatchObject({ code: 3 });
    await expect(
      own.raw.call('DescribeWorkflowExecution', { namespace: 'default', execution: { workflowId: 'no-such-workflow' } })
    ).rejects.toMatchObject({ code: 5 });
    const connection = await Connection.connect({ address: own.server.address });
    const client = new Client({ connection, namespace: 'no-such-namespace' });
    await expect(
      client.workflow.start('waitForever', { taskQueue: 'q', workflowId: randomUUID() })
    ).rejects.toBeInstanceOf(NamespaceNotFoundError);
    await connection.close();
  });
});

test("the in-flight update limit is settable (maxInFlightUpdates) and refuses with the real server's error", async () => {
  const instance = await startDevServer({ port: 0, maxInFlightUpdates: 2 });
  const client = new RawClient(instance.address);
  try {
    const workflowId = randomUUID();
    await client.call('StartWorkflowExecution', {
      namespace: 'default',
      workflowId,
      workflowType: { name: 'waitForever' },
      taskQueue: { name: 'no-worker' },
      requestId: randomUUID(),
    });
    const update = (updateId: string) =>
      client.start('UpdateWorkflowExecution', {
        namespace: 'default',
        workflowExecution: { workflowId },
        request: { meta: { updateId }, input: { name: 'hold' } },
        waitPolicy: {
          lifecycleStage: E.UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED,
        },
      });
    // Nobody polls the queue: both stay admitted, waiting for a worker. Calls on one channel are
    // handled in order, so once a later call has been answered both have been admitted.
    const held = [update('first'), update('second')];
    await client.call('DescribeWorkflowExecution', { namespace: 'default', execution: { workflowId } });
    await expect(update('third').response).rejects.toMatchObject({
      code: 8,
      details: 'limit on number of concurrent in-flight updates has been reached (2)',
    });
    for (const call of held) call.cancel();
    await Promise.allSettled(held.map((call) => call.response));
    await expect(startDevServer({ port: 0, maxInFlightUpdates: 0 })).rejects.toThrow(/maxInFlightUpdates/);
  } finally {
    client.close();
    await instance.stop();
  }
});

test('a completion with one invalid command is rejected whole: no event of the batch is written', async () => {
  const taskQueue = `atomic-${randomUUID()}`;
  const workflowId = randomUUID();
  const task = await startAndTakeFirstTask(own, taskQueue, workflowId);
  await expect(
    own.raw.call('RespondWorkflowTaskCompleted', {
      namespace: 'default',
      taskToken: task.taskToken,
      commands: [
        {
          commandType: E.CommandType.COMMAND_TYPE_START_TIMER,
          startTimerCommandAttributes: { timerId: 't1', startToFireTimeout: { seconds: 60 } },
        },
        { commandType: E.CommandType.COMMAND_TYPE_START_TIMER, startTimerCommandAttributes: { timerId: '' } },
      ],
    })
  ).rejects.toMatchObject({ code: 3 });
  const history = await own.raw.call('GetWorkflowExecutionHistory', {
    namespace: 'default',
    execution: { workflowId },
  });
  const types = (history.history as { events: { eventType: number }[] }).events.map((e) => e.eventType);
  expect(types).not.toContain(E.EventType.EVENT_TYPE_TIMER_STARTED);
  expect(types).toContain(E.EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
  await own.raw.call('TerminateWorkflowExecution', { namespace: 'default', workflowExecution: { workflowId } });
});

test('a workflow using an unsupported feature (child workflows) gets a workflow task failure that says so', async () => {
  await withWorker(own.bundle, own.server.address, 'unsupported', async (client) => {
    const handle = await client.workflow.start('startsChild', { taskQueue: 'unsupported', workflowId: randomUUID() });
    const failure = await eventually(async () => {
      const history = await handle.fetchHistory();
      const failed = history.events?.find((e) => e.workflowTaskFailedEventAttributes);
      expect(failed).toBeDefined();
      return failed?.workflowTaskFailedEventAttributes;
    });
    expect(failure?.failure?.message).toContain('does not support child workflows');
    await handle.terminate();
  });
});
