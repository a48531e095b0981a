/**
 * Conformance: search attribute registration (OperatorService), typed search attributes and memo
 * at start and from the workflow, List/Count with the visibility query language, and the
 * failures the real server produces for unregistered attributes and bad queries.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createHarness, eventually, eventTypes, replayCollected, type Harness } from './harness';
import { finishSignal, type searchAttributeWriter } from './workflows';

const INDEXED = temporal.api.enums.v1.IndexedValueType;
const KEYWORD_KEY = defineSearchAttributeKey('ConvDevKeyword', SearchAttributeType.KEYWORD);
const INT_KEY = defineSearchAttributeKey('ConvDevInt', SearchAttributeType.INT);
const batch = `batch-${randomUUID().slice(0, 8)}`;

let harness: Harness;
const handles: WorkflowHandle<typeof searchAttributeWriter>[] = [];
let beforeStart: Date;

async function registerSearchAttributes(): Promise<void> {
  try {
    await harness.client.connection.operatorService.addSearchAttributes({
      namespace: harness.temporal.namespace,
      searchAttributes: {
        ConvDevKeyword: INDEXED.INDEXED_VALUE_TYPE_KEYWORD,
        ConvDevInt: INDEXED.INDEXED_VALUE_TYPE_INT,
      },
    });
  } catch (error) {
    // A real server that already has them from an earlier run answers ALREADY_EXISTS.
    if ((error as { code?: number }).code !== 6) throw error;
  }
}

// Jest only honours testTimeout globally, not per project.
jest.setTimeout(60_000);

beforeAll(async () => {
  harness = await createHarness({ echo: async (value: number) => value });
  await registerSearchAttributes();
  beforeStart = new Date(Date.now() - 1000);
  for (let n = 1; n <= 4; n++) {
    const handle = await harness.client.workflow.start<typeof searchAttributeWriter>('searchAttributeWriter', {
      taskQueue: harness.taskQueue,
      workflowId: harness.id(`sa-${n}`),
      args: [[{ name: 'ConvDevInt', type: 'INT', value: n }], { upserted: `memo-${n}` }],
      typedSearchAttributes: new TypedSearchAttributes([{ key: KEYWORD_KEY, value: batch }]),
      memo: { started: n },
    });
    handles.push(handle);
  }
  // Two of them finish, two keep running.
  for (const handle of handles.slice(0, 2)) {
    await handle.signal(finishSignal);
    await handle.result();
  }
});

afterAll(async () => {
  for (const handle of handles.slice(2)) await handle.terminate().catch(() => undefined);
  await harness?.close();
});

async function list(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const info of harness.client.workflow.list({ query })) ids.push(info.workflowId);
  return ids.sort();
}

async function count(query: string): Promise<number> {
  return (await harness.client.workflow.count(query)).count;
}

function idsOf(...numbers: number[]): string[] {
  return numbers.map((n) => (handles[n - 1] as WorkflowHandle).workflowId).sort();
}

test('ListSearchAttributes shows registered custom attributes', async () => {
  const response = await harness.client.connection.operatorService.listSearchAttributes({
    namespace: harness.temporal.namespace,
  });
  expect(response.customAttributes?.ConvDevKeyword).toBe(INDEXED.INDEXED_VALUE_TYPE_KEYWORD);
  expect(response.customAttributes?.ConvDevInt).toBe(INDEXED.INDEXED_VALUE_TYPE_INT);
  expect(response.systemAttributes?.WorkflowId).toBe(INDEXED.INDEXED_VALUE_TYPE_KEYWORD);
});

test('RemoveSearchAttributes unregisters a custom attribute', async () => {
  const operator = harness.client.connection.operatorService;
  const namespace = harness.temporal.namespace;
  const name = `ConvDevTemporary${randomUUID().slice(0, 6)}`;
  await operator.addSearchAttributes({ namespace, searchAttributes: { [name]: INDEXED.INDEXED_VALUE_TYPE_BOOL } });
  await eventually(async () => {
    expect((await operator.listSearchAttributes({ namespace })).customAttributes?.[name]).toBeDefined();
  });
  await operator.removeSearchAttributes({ namespace, searchAttributes: [name] });
  await eventually(async () => {
    expect((await operator.listSearchAttributes({ namespace })).customAttributes?.[name]).toBeUndefined();
  });
});

test('typed search attributes set at start and upserted by the workflow are decoded', async () => {
  await eventually(async () => {
    const description = await (handles[2] as WorkflowHandle).describe();
    expect(description.typedSearchAttributes.get(KEYWORD_KEY)).toBe(batch);
    expect(description.typedSearchAttributes.get(INT_KEY)).toBe(3);
  });
});

test('memo from the start request and from upsertMemo is returned by describe and list', async () => {
  await eventually(async () => {
    const description = await (handles[3] as WorkflowHandle).describe();
    expect(description.memo).toEqual({ started: 4, upserted: 'memo-4' });
  });
  const listed: Record<string, unknown>[] = [];
  for await (const info of harness.client.workflow.list({
    query: `WorkflowId = '${(handles[0] as WorkflowHandle).workflowId}'`,
  })) {
    listed.push(info.memo ?? {});
  }
  expect(listed).toEqual([{ started: 1, upserted: 'memo-1' }]);
});

test('list and count filter with comparisons, AND/OR, parentheses, IN, BETWEEN and StartTime ranges', async () => {
  const scope = `ConvDevKeyword = '${batch}'`;
  const since = beforeStart.toISOString();
  // Each check retries: a real server's visibility store is eventually consistent.
  const expectList = (query: string, expected: string[]) =>
    eventually(async () => expect(await list(query)).toEqual(expected));
  const expectCount = (query: string, expected: number) =>
    eventually(async () => expect(await count(query)).toBe(expected));
  await expectCount(`${scope} AND ConvDevInt >= 1`, 4);
  await expectList(`${scope} AND ConvDevInt >= 2`, idsOf(2, 3, 4));
  await expectList(`${scope} AND (ConvDevInt = 1 OR ConvDevInt = 4)`, idsOf(1, 4));
  await expectList(`${scope} AND ConvDevInt BETWEEN 2 AND 3`, idsOf(2, 3));
  await expectList(`${scope} AND ConvDevInt != 2 AND ConvDevInt < 4`, idsOf(1, 3));
  await expectList(`${scope} AND ExecutionStatus = 'Running'`, idsOf(3, 4));
  await expectList(`${scope} AND ExecutionStatus = 'Completed'`, idsOf(1, 2));
  await expectList(`WorkflowId IN ('${idsOf(1)[0]}', '${idsOf(3)[0]}')`, idsOf(1, 3));
  await expectList(`${scope} AND WorkflowType = 'searchAttributeWriter' AND StartTime > '${since}'`, idsOf(1, 2, 3, 4));
  await expectCount(`${scope} AND StartTime < '${since}'`, 0);
  await expectCount(`${scope} AND ConvDevInt <= 2`, 2);
});

test("list and count filter by TaskQueue, as a deployment's turn views do on a shared namespace", async () => {
  const tagged = `${batch}-queues`;
  const queues = [`${harness.taskQueue}-a`, `${harness.taskQueue}-b`];
  // No worker polls either queue: visibility lists a run from its start.
  const started = await Promise.all(
    queues.map((taskQueue, n) =>
      harness.client.workflow.start<typeof searchAttributeWriter>('searchAttributeWriter', {
        taskQueue,
        workflowId: harness.id(`sa-queue-${n}`),
        args: [[], {}],
        typedSearchAttributes: new TypedSearchAttributes([{ key: KEYWORD_KEY, value: tagged }]),
      })
    )
  );
  try {
    const running = `ConvDevKeyword = '${tagged}' AND ExecutionStatus = 'Running'`;
    for (const [n, taskQueue] of queues.entries()) {
      const query = `${running} AND TaskQueue = '${taskQueue}'`;
      await eventually(async () => expect(await list(query)).toEqual([started[n]?.workflowId]));
      await eventually(async () => expect(await count(query)).toBe(1));
    }
    await eventually(async () => expect(await count(`${running} AND TaskQueue = '${harness.taskQueue}'`)).toBe(0));
  } finally {
    for (const handle of started) await handle.terminate().catch(() => undefined);
  }
});

test('count groups by ExecutionStatus', async () => {
  await eventually(async () => {
    const result = await harness.client.workflow.count(`ConvDevKeyword = '${batch}' GROUP BY ExecutionStatus`);
    expect(result.count).toBe(4);
    const groups = Object.fromEntries(result.groups.map((g) => [String(g.groupValues[0]), g.count]));
    expect(groups).toEqual({ Completed: 2, Running: 2 });
  });
});

test('an invalid query is rejected with INVALID_ARGUMENT', async () => {
  await expect(count(`ConvDevKeyword = `)).rejects.toMatchObject({ cause: { code: 3 } });
  await expect(count(`NoSuchAttribute = 'x'`)).rejects.toMatchObject({ cause: { code: 3 } });
});

test('starting with an unregistered search attribute fails with INVALID_ARGUMENT', async () => {
  const unknownKey = defineSearchAttributeKey('ConvDevNeverRegistered', SearchAttributeType.KEYWORD);
  const error = await harness.client.workflow
    .start('searchAttributeWriter', {
      taskQueue: harness.taskQueue,
      workflowId: harness.id('sa-unknown-start'),
      args: [[], {}],
      typedSearchAttributes: new TypedSearchAttributes([{ key: unknownKey, value: 'x' }]),
    })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ cause: { code: 3 } });
});

test('upserting an unregistered search attribute fails the workflow task (BAD_SEARCH_ATTRIBUTES)', async () => {
  const handle = await harness.client.workflow.start<typeof searchAttributeWriter>('searchAttributeWriter', {
    taskQueue: harness.taskQueue,
    workflowId: harness.id('sa-unknown-upsert'),
    args: [[{ name: 'ConvDevNeverRegistered', type: 'KEYWORD', value: 'x' }], {}],
  });
  const failure = await eventually(async () => {
    const history = await handle.fetchHistory();
    const failed = history.events?.find((e) => e.workflowTaskFailedEventAttributes);
    expect(failed).toBeDefined();
    return failed?.workflowTaskFailedEventAttributes;
  });
  expect(failure?.cause).toBe(
    temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES
  );
  expect(await eventTypes(handle)).not.toContain('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES');
  await handle.terminate();
  await harness.collect(handle);
});

test('Worker.runReplayHistories accepts the histories of this file', async () => {
  for (const handle of handles.slice(0, 2)) await harness.collect(handle);
  expect(await replayCollected(harness, 'visibility')).toEqual([]);
});
