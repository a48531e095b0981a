/**
 * How the embedded dev server hands tasks to workers: long-poll expiry and cancellation, stale
 * tasks, sticky fallback after schedule-to-start, O(n) history shipping with sticky execution, and
 * eager dispatch.
 */
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { startDevServer } from '../../devserver';
import { useOwnDevServer, withWorker, startAndTakeFirstTask } from './own-server';
import { RawClient } from './raw-client';
import type { activitySequence } from './workflows';

const E = temporal.api.enums.v1;
const own = useOwnDevServer();

// Jest only honours testTimeout globally, not per project.
jest.setTimeout(60_000);

describe('long polls', () => {
  test('an idle poll answers an empty response when the long poll expires', async () => {
    const started = Date.now();
    const response = await own.raw.call('PollActivityTaskQueue', {
      namespace: 'default',
      taskQueue: { name: 'idle-queue' },
    });
    expect(response.taskToken).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  test('a cancelled poll is dropped, so the next task goes to a live poller', async () => {
    const taskQueue = `cancel-${randomUUID()}`;
    const abandoned = own.raw.start('PollWorkflowTaskQueue', { namespace: 'default', taskQueue: { name: taskQueue } });
    abandoned.response.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    abandoned.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const task = await startAndTakeFirstTask(own, taskQueue, randomUUID());
    expect(task.taskToken).toBeDefined();
    expect((task.history as { events: unknown[] }).events).toHaveLength(3);
  });
});

test('a task that goes stale before dispatch does not swallow the waiting poller', async () => {
  const instance = await startDevServer({ port: 0, longPollTimeoutMs: 10_000 });
  const client = new RawClient(instance.address);
  try {
    const workflowQueue = `stale-${randomUUID()}`;
    const activityQueue = `${workflowQueue}-activities`;
    const scheduleActivity = (activityId: string) => ({
      commandType: E.CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
      scheduleActivityTaskCommandAttributes: {
        activityId,
        activityType: { name: 'a' },
        taskQueue: { name: activityQueue },
        startToCloseTimeout: { seconds: 10 },
      },
    });
    const runWorkflowTask = async (commands: object[]) => {
      await client.call('StartWorkflowExecution', {
        namespace: 'default',
        workflowId: randomUUID(),
        workflowType: { name: 'w' },
        taskQueue: { name: workflowQueue },
      });
      const task = await client.call('PollWorkflowTaskQueue', {
        namespace: 'default',
        taskQueue: { name: workflowQueue },
      });
      await client.call('RespondWorkflowTaskCompleted', { namespace: 'default', taskToken: task.taskToken, commands });
    };
    const waiting = client.call('PollActivityTaskQueue', { namespace: 'default', taskQueue: { name: activityQueue } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Scheduled and closed in one completion: the activity task is stale before it reaches the poller.
    await runWorkflowTask([
      scheduleActivity('stale'),
      {
        commandType: E.CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
        completeWorkflowExecutionCommandAttributes: {},
      },
    ]);
    await runWorkflowTask([scheduleActivity('live')]);
    const started = Date.now();
    const task = await waiting;
    expect(task.activityId).toBe('live');
    expect(Date.now() - started).toBeLessThan(5000);
  } finally {
    client.close();
    await instance.stop();
  }
});

describe('sticky execution', () => {
  test('a task nobody takes from the sticky queue times out and goes to the normal queue with full history', async () => {
    const taskQueue = `sticky-${randomUUID()}`;
    const stickyQueue = `${taskQueue}-sticky`;
    const workflowId = randomUUID();
    const first = await startAndTakeFirstTask(own, taskQueue, workflowId);
    // One short-lived poll marks the sticky queue as belonging to a live worker.
    const stickyPoll = own.raw.start('PollWorkflowTaskQueue', {
      namespace: 'default',
      taskQueue: { name: stickyQueue, kind: E.TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: taskQueue },
    });
    await stickyPoll.response;
    await own.raw.call('RespondWorkflowTaskCompleted', {
      namespace: 'default',
      taskToken: first.taskToken,
      stickyAttributes: {
        workerTaskQueue: { name: stickyQueue, kind: E.TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: taskQueue },
        scheduleToStartTimeout: { nanos: 300_000_000 },
      },
    });
    await own.raw.call('SignalWorkflowExecution', {
      namespace: 'default',
      workflowExecution: { workflowId },
      signalName: 's',
    });
    const started = Date.now();
    const second = await own.raw.call('PollWorkflowTaskQueue', {
      namespace: 'default',
      taskQueue: { name: taskQueue },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const events = (second.history as { events: { eventId: number; eventType: number }[] }).events;
    expect(events[0]?.eventId).toBe(1);
    expect(events.map((e) => e.eventType)).toContain(E.EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT);
    await own.raw.call('TerminateWorkflowExecution', { namespace: 'default', workflowExecution: { workflowId } });
  });

  test('sticky execution ships each event about once (O(n)); without a cache it is O(n²)', async () => {
    const run = async (maxCachedWorkflows: number | undefined) => {
      const instance = await startDevServer({ port: 0 });
      try {
        await withWorker(
          own.bundle,
          instance.address,
          'bench',
          (client) =>
            client.workflow.execute<typeof activitySequence>('activitySequence', {
              taskQueue: 'bench',
              workflowId: randomUUID(),
              args: [30],
            }),
          maxCachedWorkflows
        );
        return instance.stats();
      } finally {
        await instance.stop();
      }
    };
    const sticky = await run(undefined);
    const uncached = await run(0);
    expect(sticky.eventsSentInWorkflowTasks).toBeLessThan(1.5 * sticky.eventsWritten);
    expect(uncached.eventsSentInWorkflowTasks).toBeGreaterThan(5 * uncached.eventsWritten);
  });
});

test('the SDK worker runs its activities eagerly; with eager dispatch off every task goes through a poll', async () => {
  const run = async (eager: boolean) => {
    const instance = await startDevServer({ port: 0, eagerActivityExecution: eager, eagerWorkflowStart: eager });
    const client = new RawClient(instance.address);
    try {
      await withWorker(own.bundle, instance.address, 'eager', (sdkClient) =>
        sdkClient.workflow.execute<typeof activitySequence>('activitySequence', {
          taskQueue: 'eager',
          workflowId: randomUUID(),
          args: [5],
        })
      );
      const info = await client.call('GetSystemInfo', {});
      const started = await client.call('StartWorkflowExecution', {
        namespace: 'default',
        workflowId: randomUUID(),
        workflowType: { name: 'anything' },
        taskQueue: { name: 'nobody-polls' },
        requestId: randomUUID(),
        requestEagerExecution: true,
      });
      return { stats: instance.stats(), info, started };
    } finally {
      client.close();
      await instance.stop();
    }
  };
  const on = await run(true);
  expect(on.stats.activityTasksDispatched).toBe(5);
  expect(on.stats.eagerActivityTasks).toBe(5);
  expect(on.info.capabilities).toMatchObject({ eagerWorkflowStart: true });
  expect(on.started.eagerWorkflowTask).toBeDefined();
  const off = await run(false);
  expect(off.stats.activityTasksDispatched).toBe(5);
  expect(off.stats.eagerActivityTasks).toBe(0);
  expect((off.info.capabilities as { eagerWorkflowStart?: boolean }).eagerWorkflowStart ?? false).toBe(false);
  expect(off.started.eagerWorkflowTask ?? null).toBeNull();
});
