import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { createHarness, type Harness } from './harness';
import { finishSignal, releaseSignal, stageQuery, type queriedLocalActivity } from './workflows';

const E = temporal.api.enums.v1.EventType;
let harness: Harness & { worker: Worker; running: Promise<void> };

jest.setTimeout(120_000);

beforeAll(async () => {
  harness = await createHarness({
    slow: async (ms: number) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return 'slow done';
    },
  });
  // Each run brings its own workers, so the task a query rides on waits for one.
  harness.worker.shutdown();
  await harness.running;
});

afterAll(async () => {
  await harness?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The run waits for `release` with no worker polling; `release` and a stream of queries arrive, so the task that
 * delivers the signal also carries a query (both servers attach the queries buffered while a task is pending,
 * RecordWorkflowTaskStarted). A new worker takes it: the workflow schedules a local activity of `ms` and sdk-core
 * answers the query meanwhile.
 */
async function queriedRun(ms: number): Promise<WorkflowHandle> {
  const handle = await harness.client.workflow.start<typeof queriedLocalActivity>('queriedLocalActivity', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('queried-la'),
    args: [ms],
  });
  await (
    await harness.newWorker({})
  ).runUntil(async () => {
    while ((await handle.query(stageQuery)) !== 'waiting') await sleep(20);
  });
  await handle.signal(releaseSignal);
  const querying = (async () => {
    while (!['patched', 'unpatched'].includes(await handle.query(stageQuery))) await sleep(10);
  })();
  await sleep(300);
  await (
    await harness.newWorker({})
  ).runUntil(async () => {
    await querying;
    await handle.signal(finishSignal);
    await handle.result();
  });
  return handle;
}

/** Whether the local activity's marker and the patch the workflow asked right after it are in different tasks. */
function markerSplitFromPatch(events: temporal.api.history.v1.IHistoryEvent[]): boolean {
  const types = events.map((e) => e.eventType);
  const marker = events.findIndex((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  const patch = events.findIndex((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');
  return types.slice(marker, patch).includes(E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
}

async function replayError(handle: WorkflowHandle): Promise<string | null> {
  const history = await handle.fetchHistory();
  const replayed = Worker.runReplayHistory({ workflowBundle: harness.bundle }, history, handle.workflowId);
  return replayed.then(
    () => null,
    (err: Error) => err.message
  );
}

/**
 * sdk-core (1.24) answers a query a task carries as soon as lang has answered it, local activity or not. When the
 * activity has resolved by then but lang has not seen it, the completion carries the activity's marker and forces a
 * new task, in which lang goes on after the activity. Replay resolves the activity in the first task and goes on
 * there: the patch asked after the activity finds no marker in that task, and the history does not replay. Both
 * servers record what the worker sends, so this holds on the real server too (`npm run test:temporal`); it is why
 * tests wait on a held turn's search attributes, not by queries (test/support/cancelled-turn.ts cutByWorkerStop).
 */
test('a query on the task that schedules a quick local activity can split it from what follows: no replay', async () => {
  const outcomes: { split: boolean; error: string | null }[] = [];
  // The split needs the activity to resolve before the query's answer goes out: tried until it does, at most 5 times.
  while (outcomes.length < 5 && !outcomes.some((o) => o.split)) {
    const handle = await queriedRun(0);
    const split = markerSplitFromPatch((await handle.fetchHistory()).events ?? []);
    outcomes.push({ split, error: await replayError(handle) });
  }
  expect(outcomes.some((o) => o.split)).toBe(true);
  for (const { split, error } of outcomes) {
    if (split) expect(error).toContain('patch marker encountered for change after-local-activity');
    else expect(error).toBeNull();
  }
});

test('a query answered while the local activity still runs leaves a history that replays', async () => {
  const handle = await queriedRun(1_500);
  expect(markerSplitFromPatch((await handle.fetchHistory()).events ?? [])).toBe(false);
  expect(await replayError(handle)).toBeNull();
});
