import { status } from '@grpc/grpc-js';
import { ServiceError, type Client } from '@temporalio/client';
import { temporalInspector } from '../../api/console/temporal-inspector';
import { TURN_WORKFLOW_TYPE } from '../../workflows/turn-type';
import { CURRENT_WORKER, fakeTemporalClient, OLDER_WORKER } from '../support/fake-temporal-client';

const QUEUE = 'convengine-turns';

/** A gRPC error as @temporalio/client raises it for a server's answer. */
function grpcError(code: status): Error {
  return Object.assign(new Error(`${code}`), { code, details: 'from the server', metadata: {} });
}

function clientAnswering(err: Error): Client {
  const fail = async () => {
    throw err;
  };
  const workflowService = { resetActivity: fail, pauseActivity: fail, unpauseActivity: fail };
  const workflow = { getHandle: () => ({ describe: async () => ({ taskQueue: QUEUE }) }) };
  return { options: { namespace: 'ns' }, workflowService, workflow } as unknown as Client;
}

describe("the console's activity operations on a server's answers", () => {
  it.each([
    [status.UNIMPLEMENTED, 501, 'ACTIVITY_OPERATION_UNSUPPORTED'],
    [status.NOT_FOUND, 404, 'ACTIVITY_NOT_FOUND'],
    [status.FAILED_PRECONDITION, 409, 'TURN_NOT_RUNNING'],
  ])('gRPC %s becomes %s %s', async (code, statusCode, errorCode) => {
    const inspector = temporalInspector(clientAnswering(grpcError(code)), QUEUE);
    for (const operation of ['reset', 'pause', 'unpause'] as const) {
      await expect(inspector.operateActivity('turn-x-1', '7', operation)).rejects.toMatchObject({
        statusCode,
        code: errorCode,
      });
    }
  });

  it('says which operation the server lacks', async () => {
    const inspector = temporalInspector(clientAnswering(grpcError(status.UNIMPLEMENTED)), QUEUE);
    await expect(inspector.operateActivity('turn-x-1', '7', 'pause')).rejects.toThrow(
      'This Temporal server does not support activity pause'
    );
  });
});

/**
 * A client whose turn is parked on `convengine-turns` (from before the parked-call memo), polled `polledMsAgo` by `poller`, and whose query fails with
 * `err`.
 */
function clientQuerying(polledMsAgo: number, err: Error, poller = CURRENT_WORKER) {
  const queried = { count: 0 };
  const handle = {
    // Parked by a worker before the parked-call memo: only a query can tell what it waits on.
    describe: async () => ({
      status: { name: 'RUNNING' },
      taskQueue: 'convengine-turns',
      type: TURN_WORKFLOW_TYPE,
      searchAttributes: { TurnOutcome: ['AWAITING_APPROVAL'] },
    }),
    query: async () => {
      queried.count++;
      throw err;
    },
  };
  const client = fakeTemporalClient(handle, polledMsAgo, poller);
  return { client, queried };
}

describe("the console's read of what a parked turn waits on, without a worker", () => {
  // Temporal's server refuses a query at once when no worker polled lately, as the SDK wraps it.
  const noPoller = new ServiceError('Failed to query Workflow', {
    cause: grpcError(status.FAILED_PRECONDITION),
  });

  it('is 503 WORKER_UNAVAILABLE, not a 500, when the server says no poller was seen', async () => {
    const { client } = clientQuerying(1_000, noPoller);
    for (const read of [
      () => temporalInspector(client, QUEUE).pendingApproval('turn-x-1'),
      () => temporalInspector(client, QUEUE).heldTool('turn-x-1'),
    ]) {
      await expect(read()).rejects.toMatchObject({ statusCode: 503, code: 'WORKER_UNAVAILABLE' });
      await expect(read()).rejects.toThrow('no worker is polling task queue convengine-turns');
    }
  });

  it('does not ask when no worker polled the task queue lately', async () => {
    const { client, queried } = clientQuerying(5 * 60_000, noPoller);
    await expect(temporalInspector(client, QUEUE).heldTool('turn-x-1')).rejects.toMatchObject({ statusCode: 503 });
    expect(queried.count).toBe(0);
  });

  it('does not ask when only workers of an older build poll: they lack the turn type', async () => {
    const { client, queried } = clientQuerying(1_000, noPoller, OLDER_WORKER);
    await expect(temporalInspector(client, QUEUE).pendingApproval('turn-x-1')).rejects.toMatchObject({
      statusCode: 503,
      message: expect.stringContaining('runs conversationTurnV3, only 1 of an older build'),
    });
    expect(queried.count).toBe(0);
  });

  it('is 503 when the query outlives its deadline', async () => {
    const { client } = clientQuerying(
      1_000,
      new ServiceError('Failed to query Workflow', {
        cause: grpcError(status.DEADLINE_EXCEEDED),
      })
    );
    await expect(temporalInspector(client, QUEUE).pendingApproval('turn-x-1')).rejects.toThrow(
      /no worker answered within 5 s/
    );
  });
});

describe("the console's list of a conversation's turns", () => {
  /** A run of `workflowId` as Temporal's visibility lists it. */
  const run = (workflowId: string, runId: string, startedAt: string) => ({
    workflowId,
    runId,
    status: { name: 'COMPLETED' },
    searchAttributes: {},
    startTime: new Date(startedAt),
    closeTime: undefined,
  });
  const listing = [
    run('turn-c-1', 'retried', '2026-03-01T10:05:00.000Z'),
    run('turn-c-2', 'only', '2026-03-01T10:07:00.000Z'),
    run('turn-c-1', 'failed', '2026-03-01T10:00:00.000Z'),
  ];
  const client = {
    options: { namespace: 'default' },
    workflow: {
      async *list() {
        yield* listing;
      },
    },
    workflowService: { getWorkflowExecutionHistory: async () => ({ history: null }) },
  } as unknown as Client;

  it("orders a turn's runs by start time, whatever order the host's locale would give", async () => {
    // A host whose collation orders these strings the other way round: the order must not be the locale's.
    const collation = jest.spyOn(String.prototype, 'localeCompare').mockImplementation(function (this: string, that) {
      return this < that ? 1 : this > that ? -1 : 0;
    });
    try {
      const { turns } = await temporalInspector(client, 'tq').turns('c', { after: 0, limit: 50 });
      expect(turns.map((t) => [t.workflowId, t.runId, t.earlierRuns.map((r) => r.runId)])).toEqual([
        ['turn-c-1', 'retried', ['failed']],
        ['turn-c-2', 'only', []],
      ]);
    } finally {
      collation.mockRestore();
    }
  });
});
