/**
 * Behaviour specific to the embedded dev server, so these tests always start their own instance
 * (even when TEMPORAL_ADDRESS is set): robustness against any input, long-poll expiry and
 * cancellation, sticky fallback after schedule-to-start, O(n) history shipping with sticky
 * execution, unsupported commands, and persistence across restarts and crashes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection, NamespaceNotFoundError } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { startDevServer, type DevServer } from '../../devserver';
import { bundleTestWorkflows, eventually, installQuietRuntime } from './harness';
import { RawClient } from './raw-client';
import type { accumulator, activitySequence, activityWithOptions, timerThenActivity } from './workflows';

const E = temporal.api.enums.v1;
const REPO_ROOT = path.join(__dirname, '..', '..');
const activities = {
  echo: async (value: number) => value,
  slow: async (ms: number) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return 'slow done';
  },
};

let bundle: WorkflowBundleWithSourceMap;
let server: DevServer;
let raw: RawClient;
const internalErrors: unknown[] = [];

// Jest only honours testTimeout globally, not per project.
jest.setTimeout(60_000);

beforeAll(async () => {
  installQuietRuntime();
  bundle = await bundleTestWorkflows();
  // Exact deadlines (no 1 s timer floor): these tests time sticky fallbacks against 300 ms long polls.
  server = await startDevServer({
    port: 0,
    longPollTimeoutMs: 300,
    minTimerDelayMs: 0,
    onInternalError: (e) => internalErrors.push(e),
  });
  raw = new RawClient(server.address);
});

afterAll(async () => {
  raw?.close();
  await server?.stop();
});

function tempFile(label: string): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'convengine-devserver-'));
  return path.join(directory, `${label}.jsonl`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function withWorker<T>(
  address: string,
  taskQueue: string,
  fn: (client: Client) => Promise<T>,
  maxCachedWorkflows?: number
) {
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  try {
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: bundle,
      activities,
      ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }),
    });
    return await worker.runUntil(fn(new Client({ connection: clientConnection })));
  } finally {
    await clientConnection.close();
    await connection.close();
  }
}

describe('robustness', () => {
  test('every RPC answers a status for empty and garbage requests, and the server keeps serving', async () => {
    const codes = new Set<number>();
    for (const method of raw.methods.keys()) {
      for (const request of [
        {},
        { namespace: 'default' },
        randomBytes(64),
        Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]),
      ]) {
        const outcome = await raw.call(method, request).then(
          () => 0,
          (error: { code: number }) => error.code
        );
        codes.add(outcome);
      }
    }
    expect(internalErrors).toEqual([]);
    expect(codes.has(13)).toBe(false);
    expect(codes.has(2)).toBe(false);
    expect((await raw.call('GetSystemInfo', {})).capabilities).toBeDefined();
  });

  test('an unsupported RPC answers UNIMPLEMENTED naming the method', async () => {
    await expect(raw.call('CreateSchedule', { namespace: 'default' })).rejects.toMatchObject({
      code: 12,
      details: expect.stringContaining('CreateSchedule'),
    });
  });

  test('RegisterNamespace of another namespace reaches its handler: unsupported, not NOT_FOUND', async () => {
    await expect(raw.call('RegisterNamespace', { namespace: 'sweepb' })).rejects.toMatchObject({
      code: 12,
      details: expect.stringContaining('serves a single namespace, default'),
    });
    await expect(raw.call('RegisterNamespace', { namespace: 'default' })).rejects.toMatchObject({ code: 6 });
    await expect(raw.call('DescribeNamespace', { namespace: 'sweepb' })).rejects.toMatchObject({ code: 5 });
  });

  test('malformed bytes answer INVALID_ARGUMENT; unknown entities answer NOT_FOUND', async () => {
    await expect(raw.call('StartWorkflowExecution', Buffer.from([0x0a, 0xff]))).rejects.toMatchObject({ code: 3 });
    await expect(
      raw.call('DescribeWorkflowExecution', { namespace: 'default', execution: { workflowId: 'no-such-workflow' } })
    ).rejects.toMatchObject({ code: 5 });
    const connection = await Connection.connect({ address: server.address });
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

describe('long polls', () => {
  test('an idle poll answers an empty response when the long poll expires', async () => {
    const started = Date.now();
    const response = await raw.call('PollActivityTaskQueue', {
      namespace: 'default',
      taskQueue: { name: 'idle-queue' },
    });
    expect(response.taskToken).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  test('a cancelled poll is dropped, so the next task goes to a live poller', async () => {
    const taskQueue = `cancel-${randomUUID()}`;
    const abandoned = raw.start('PollWorkflowTaskQueue', { namespace: 'default', taskQueue: { name: taskQueue } });
    abandoned.response.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    abandoned.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await raw.call('StartWorkflowExecution', {
      namespace: 'default',
      workflowId: randomUUID(),
      workflowType: { name: 'anything' },
      taskQueue: { name: taskQueue },
    });
    const task = await raw.call('PollWorkflowTaskQueue', { namespace: 'default', taskQueue: { name: taskQueue } });
    expect(task.taskToken).toBeDefined();
    expect((task.history as { events: unknown[] }).events).toHaveLength(3);
  });
});

test('a completion with one invalid command is rejected whole: no event of the batch is written', async () => {
  const taskQueue = `atomic-${randomUUID()}`;
  const workflowId = randomUUID();
  await raw.call('StartWorkflowExecution', {
    namespace: 'default',
    workflowId,
    workflowType: { name: 'anything' },
    taskQueue: { name: taskQueue },
  });
  const task = await raw.call('PollWorkflowTaskQueue', { namespace: 'default', taskQueue: { name: taskQueue } });
  await expect(
    raw.call('RespondWorkflowTaskCompleted', {
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
  const history = await raw.call('GetWorkflowExecutionHistory', { namespace: 'default', execution: { workflowId } });
  const types = (history.history as { events: { eventType: number }[] }).events.map((e) => e.eventType);
  expect(types).not.toContain(E.EventType.EVENT_TYPE_TIMER_STARTED);
  expect(types).toContain(E.EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
  await raw.call('TerminateWorkflowExecution', { namespace: 'default', workflowExecution: { workflowId } });
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
    await raw.call('StartWorkflowExecution', {
      namespace: 'default',
      workflowId,
      workflowType: { name: 'anything' },
      taskQueue: { name: taskQueue },
    });
    const first = await raw.call('PollWorkflowTaskQueue', { namespace: 'default', taskQueue: { name: taskQueue } });
    // One short-lived poll marks the sticky queue as belonging to a live worker.
    const stickyPoll = raw.start('PollWorkflowTaskQueue', {
      namespace: 'default',
      taskQueue: { name: stickyQueue, kind: E.TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: taskQueue },
    });
    await stickyPoll.response;
    await raw.call('RespondWorkflowTaskCompleted', {
      namespace: 'default',
      taskToken: first.taskToken,
      stickyAttributes: {
        workerTaskQueue: { name: stickyQueue, kind: E.TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: taskQueue },
        scheduleToStartTimeout: { nanos: 300_000_000 },
      },
    });
    await raw.call('SignalWorkflowExecution', {
      namespace: 'default',
      workflowExecution: { workflowId },
      signalName: 's',
    });
    const started = Date.now();
    const second = await raw.call('PollWorkflowTaskQueue', { namespace: 'default', taskQueue: { name: taskQueue } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const events = (second.history as { events: { eventId: number; eventType: number }[] }).events;
    expect(events[0]?.eventId).toBe(1);
    expect(events.map((e) => e.eventType)).toContain(E.EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT);
    await raw.call('TerminateWorkflowExecution', { namespace: 'default', workflowExecution: { workflowId } });
  });

  test('sticky execution ships each event about once (O(n)); without a cache it is O(n²)', async () => {
    const run = async (maxCachedWorkflows: number | undefined) => {
      const instance = await startDevServer({ port: 0 });
      try {
        await withWorker(
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
      await withWorker(instance.address, 'eager', (sdkClient) =>
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

test('a workflow using an unsupported feature (child workflows) gets a workflow task failure that says so', async () => {
  await withWorker(server.address, 'unsupported', async (client) => {
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

describe('persistence', () => {
  test('an in-process restart keeps finished histories, waiting workflows and running timers', async () => {
    const file = tempFile('restart');
    const port = await freePort();
    let instance = await startDevServer({ port, persistPath: file });
    const ids = { done: randomUUID(), waiting: randomUUID(), timer: randomUUID() };
    await withWorker(instance.address, 'persist', async (client) => {
      expect(
        await client.workflow.execute<typeof activitySequence>('activitySequence', {
          taskQueue: 'persist',
          workflowId: ids.done,
          args: [3],
        })
      ).toBe(6);
      const waiting = await client.workflow.start<typeof accumulator>('accumulator', {
        taskQueue: 'persist',
        workflowId: ids.waiting,
        args: [5],
      });
      await waiting.signal('add', 1);
      expect(await waiting.query('total')).toBe(6);
      const timer = await client.workflow.start<typeof timerThenActivity>('timerThenActivity', {
        taskQueue: 'persist',
        workflowId: ids.timer,
        args: [1500],
      });
      await eventually(async () => {
        const history = await timer.fetchHistory();
        expect(history.events?.some((e) => e.timerStartedEventAttributes)).toBe(true);
      });
    });
    await instance.stop();
    instance = await startDevServer({ port, persistPath: file });
    try {
      await withWorker(instance.address, 'persist', async (client) => {
        expect(await client.workflow.getHandle(ids.done).result()).toBe(6);
        const waiting = client.workflow.getHandle(ids.waiting);
        await waiting.signal('add', 2);
        expect(await waiting.query('total')).toBe(8);
        await waiting.signal('finish');
        expect(await waiting.result()).toBe(8);
        expect(await client.workflow.getHandle(ids.timer).result()).toBe(1500);
        expect(
          (await client.workflow.count(`WorkflowId IN ('${ids.done}', '${ids.waiting}', '${ids.timer}')`)).count
        ).toBe(3);
      });
    } finally {
      await instance.stop();
    }
  });

  test('a server process killed with SIGKILL restarts from its file: timers, signals and a running activity survive', async () => {
    const file = tempFile('crash');
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    let child = await spawnServer(port, file);
    try {
      const connection = await NativeConnection.connect({ address });
      const clientConnection = await Connection.connect({ address });
      const client = new Client({ connection: clientConnection });
      const worker = await Worker.create({ connection, taskQueue: 'crash', workflowBundle: bundle, activities });
      await worker.runUntil(async () => {
        const timer = await client.workflow.start<typeof timerThenActivity>('timerThenActivity', {
          taskQueue: 'crash',
          workflowId: randomUUID(),
          args: [2000],
        });
        const waiting = await client.workflow.start<typeof accumulator>('accumulator', {
          taskQueue: 'crash',
          workflowId: randomUUID(),
          args: [1],
        });
        await waiting.signal('add', 1);
        const running = await client.workflow.start<typeof activityWithOptions>('activityWithOptions', {
          taskQueue: 'crash',
          workflowId: randomUUID(),
          args: ['slow', [1500], { startToCloseTimeout: '3s' }],
        });
        await eventually(async () => {
          const history = await timer.fetchHistory();
          expect(history.events?.some((e) => e.timerStartedEventAttributes)).toBe(true);
          const pending = (await running.describe()).raw.pendingActivities ?? [];
          expect(pending[0]?.state).toBe(temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);
        });
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
        child = await spawnServer(port, file);
        expect(await timer.result()).toBe(2000);
        // Completed by the same worker after the restart, or retried after its start-to-close timeout.
        expect(await running.result()).toBe(JSON.stringify('slow done'));
        await waiting.signal('finish');
        expect(await waiting.result()).toBe(2);
      });
      await clientConnection.close();
      await connection.close();
    } finally {
      child.kill('SIGTERM');
    }
  });
});

/** Runs `convengine devserver` in a child process and resolves once it prints its ready line. */
function spawnServer(port: number, file: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin', 'convengine.js'), 'devserver', '--port', String(port), '--persist', file],
    { cwd: REPO_ROOT, env: { ...process.env, CONVENGINE_USE_SOURCES: '1' }, stdio: ['ignore', 'pipe', 'inherit'] }
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`ready at 127.0.0.1:${port}`)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`devserver exited with ${code} before it was ready: ${output}`)));
  });
}
