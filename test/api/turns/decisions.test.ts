/**
 * Operators' decisions (an approval through the gateway, a held call through temporalHeldTools) are refused the same
 * ways: a turn that ended while the decision was sent is 409, not a 500; no worker polling its task queue that runs the
 * turn's type is 503 WORKER_UNAVAILABLE before anything is sent; a decision no worker took in time is the same 503,
 * saying so.
 */
import { status as grpcStatus } from '@grpc/grpc-js';
import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TemporalTurnGateway } from '../../../api/turns/gateway';
import { temporalHeldTools } from '../../../api/turns/held-tools';
import type { Database } from '../../../db/pool';
import { TURN_WORKFLOW_TYPE } from '../../../workflows/turn-type';
import { PARKED_MEMO_PATCH, TURN_PATCHES } from '../../../workflows/turn-versions';
import { CURRENT_WORKER, fakeTemporalClient, OLDER_WORKER, UNMARKED_WORKER } from '../../support/fake-temporal-client';

const CONVERSATION = '3f0c1d52-8d2a-4c7e-9d41-2a6f1b9c7e10';
const WORKFLOW_ID = `turn-${CONVERSATION}-2`;

interface FakeTurn {
  /** Status names describe answers, in turn; the last one repeats. */
  statuses: string[];
  /** When the worker last polled, ms ago. */
  polledMsAgo: number;
  update(): Promise<unknown>;
  /** The poller's identity (default: a worker of this build) and the turn's workflow type (default: this build's). */
  poller?: string;
  type?: string;
  /** The patches the turn recorded (TemporalChangeVersion); none by default. */
  patches?: string[];
  /**
   * The attempt of the turn's pending workflow task (none by default; a list: describe answers in turn, the last one
   * repeats), and its history's newest event types.
   */
  workflowTaskAttempt?: number | number[];
  newestEvents?: number[];
}

/** A client whose one turn describes, polls and takes updates as `turn` says; `sent` counts updates sent. */
function fakeClient(turn: FakeTurn) {
  const sent = { updates: 0 };
  const describe = async () => {
    const name = turn.statuses.length > 1 ? turn.statuses.shift() : turn.statuses[0];
    if (name === 'NONE') throw new WorkflowNotFoundError('not found', WORKFLOW_ID, undefined);
    if (name === 'UNANSWERED')
      throw Object.assign(new Error('deadline exceeded'), { code: grpcStatus.DEADLINE_EXCEEDED });
    const searchAttributes = turn.patches ? { TemporalChangeVersion: turn.patches } : {};
    const type = turn.type ?? TURN_WORKFLOW_TYPE;
    const attempts = turn.workflowTaskAttempt;
    const attempt = Array.isArray(attempts) ? (attempts.length > 1 ? attempts.shift() : attempts[0]) : attempts;
    const raw = { pendingWorkflowTask: attempt === undefined ? null : { attempt } };
    return { status: { name }, runId: 'run-1', taskQueue: 'convengine-turns', type, searchAttributes, raw };
  };
  const handle = {
    workflowId: WORKFLOW_ID,
    describe,
    executeUpdate: () => {
      sent.updates++;
      return turn.update();
    },
  };
  const client = fakeTemporalClient(handle, turn.polledMsAgo, turn.poller, turn.newestEvents);
  return { client, sent };
}

/** A database whose every query answers no rows: the ended turn recorded no approval. */
const noRows: Database = new Proxy({} as Database, {
  get: (_target, name) => (name === 'then' ? (answer: (rows: []) => void) => answer([]) : () => noRows),
});

const approve = (client: Client) =>
  new TemporalTurnGateway({ client, db: noRows, taskQueue: 'convengine-turns', replyTimeoutMs: 1_000 })
    .decideApproval(CONVERSATION, 2, { decision: 'approve' })
    .catch((e: unknown) => e);

const skip = (client: Client) =>
  temporalHeldTools(client, { taskQueue: 'convengine-turns' })
    .resolve(WORKFLOW_ID, { action: 'skip', decidedBy: 'sre' })
    .catch((e: unknown) => e);

const closing = () =>
  Promise.reject(new WorkflowNotFoundError('workflow update was aborted by closing workflow', WORKFLOW_ID, 'run-1'));

describe('a decision racing the end of its turn', () => {
  it('is 409 APPROVAL_NOT_PENDING for an approval and 409 NOT_HELD for a held call, not a 500', async () => {
    const ended = () => fakeClient({ statuses: ['RUNNING', 'COMPLETED'], polledMsAgo: 1_000, update: closing });
    expect(await approve(ended().client)).toMatchObject({
      statusCode: 409,
      code: 'APPROVAL_NOT_PENDING',
      message: 'Turn 2 has ended (completed) with no approval of any call recorded.',
    });
    expect(await skip(ended().client)).toMatchObject({ statusCode: 409, code: 'NOT_HELD' });
  });

  it('is 404 TURN_NOT_FOUND when the turn is gone altogether', async () => {
    const gone = () => fakeClient({ statuses: ['RUNNING', 'NONE'], polledMsAgo: 1_000, update: closing });
    expect(await approve(gone().client)).toMatchObject({ statusCode: 404, code: 'TURN_NOT_FOUND' });
    expect(await skip(gone().client)).toMatchObject({ statusCode: 404, code: 'TURN_NOT_FOUND' });
  });
});

/**
 * An approval and a held call's skip, each on a running turn of its own as `turn` says: what each answered, and
 * how many updates each sent.
 */
async function decideRunning(turn: Omit<FakeTurn, 'statuses'>) {
  const answers: { refused: unknown; updates: number }[] = [];
  for (const decide of [approve, skip]) {
    const { client, sent } = fakeClient({ statuses: ['RUNNING'], ...turn });
    answers.push({ refused: await decide(client), updates: sent.updates });
  }
  return answers;
}

const neverSent = () => Promise.reject(new Error('the decision was sent'));
const notTaken = () => Promise.reject(new WorkflowUpdateRPCTimeoutOrCancelledError('deadline exceeded'));

describe('a decision without a worker', () => {
  it('is not sent when no worker polled the task queue of the turn lately: 503 WORKER_UNAVAILABLE, decisionSent false', async () => {
    for (const { refused, updates } of await decideRunning({ polledMsAgo: 5 * 60_000, update: neverSent })) {
      expect(refused).toMatchObject({
        statusCode: 503,
        code: 'WORKER_UNAVAILABLE',
        details: { workflowId: WORKFLOW_ID, taskQueue: 'convengine-turns', decisionSent: false },
      });
      expect((refused as Error).message).toContain('Nothing was sent');
      expect(updates).toBe(0);
    }
  });

  it('is not sent when only older-build workers poll, lacking the turn type: 503, decisionSent false', async () => {
    for (const { refused, updates } of await decideRunning({
      polledMsAgo: 1_000,
      poller: OLDER_WORKER,
      update: neverSent,
    })) {
      expect(refused).toMatchObject({ statusCode: 503, code: 'WORKER_UNAVAILABLE', details: { decisionSent: false } });
      expect((refused as Error).message).toContain(
        'no worker polling task queue convengine-turns runs conversationTurnV3, only 1 of an older build'
      );
      expect(updates).toBe(0);
    }
  });

  it('is sent when only workers without the marker poll: builds a1cc19c to 06a5174 run conversationTurnV3', async () => {
    const unmarked = { polledMsAgo: 1_000, poller: UNMARKED_WORKER, update: notTaken };
    for (const { refused, updates } of await decideRunning(unmarked)) {
      expect(refused).toMatchObject({ code: 'WORKER_UNAVAILABLE', details: { decisionSent: true } });
      expect(updates).toBe(1);
    }
  });

  it('is sent to a worker of an older build for a turn of an older type, which that worker runs', async () => {
    const older = { polledMsAgo: 1_000, poller: OLDER_WORKER, type: 'conversationTurnV2', update: notTaken };
    for (const { refused, updates } of await decideRunning(older)) {
      expect(refused).toMatchObject({ details: { decisionSent: true } });
      expect(updates).toBe(1);
    }
  });

  it('that no worker took within the deadline is 503 WORKER_UNAVAILABLE saying it may still be applied', async () => {
    for (const { refused, updates } of await decideRunning({ polledMsAgo: 10_000, update: notTaken })) {
      expect(refused).toMatchObject({ statusCode: 503, code: 'WORKER_UNAVAILABLE', details: { decisionSent: true } });
      expect((refused as Error).message).toMatch(/within 10 s.*may still be applied when a worker returns/);
      expect(updates).toBe(1);
    }
  });
});

describe('a decision on a turn that recorded patches the workers polling lack (a rollback)', () => {
  const parked = ['approval-request-row', 'park-records-position', PARKED_MEMO_PATCH];
  const before = TURN_PATCHES.indexOf(PARKED_MEMO_PATCH);

  it('is not sent: 503 WORKER_LACKS_PATCH naming the patch, decisionSent false', async () => {
    const poller = `3@worker-3 runs=${TURN_WORKFLOW_TYPE} patches=${before}`;
    for (const { refused, updates } of await decideRunning({
      polledMsAgo: 1_000,
      poller,
      patches: parked,
      update: neverSent,
    })) {
      expect(refused).toMatchObject({
        statusCode: 503,
        code: 'WORKER_LACKS_PATCH',
        details: {
          workflowId: WORKFLOW_ID,
          taskQueue: 'convengine-turns',
          decisionSent: false,
          patches: [PARKED_MEMO_PATCH],
        },
      });
      expect((refused as Error).message).toContain(
        `it recorded turn workflow patches (${PARKED_MEMO_PATCH}) that no worker polling task queue convengine-turns knows`
      );
      expect(updates).toBe(0);
    }
  });

  it('is sent when a worker polling knows them, or may (its identity from before the patches marker)', async () => {
    for (const poller of [CURRENT_WORKER, `3@worker-3 runs=${TURN_WORKFLOW_TYPE}`, UNMARKED_WORKER]) {
      for (const { refused, updates } of await decideRunning({
        polledMsAgo: 1_000,
        poller,
        patches: parked,
        update: notTaken,
      })) {
        expect(refused).toMatchObject({ code: 'WORKER_UNAVAILABLE', details: { decisionSent: true } });
        expect(updates).toBe(1);
      }
    }
  });
});

/** How the client reports an update Temporal dropped with its failed workflow task (gRPC FAILED_PRECONDITION). */
const dropped = () =>
  Promise.reject(
    new ServiceError('Workflow Update failed', {
      cause: Object.assign(
        new Error('Unable to perform workflow execution update due to unexpected workflow task failure.'),
        { code: grpcStatus.FAILED_PRECONDITION }
      ),
    })
  );

describe('a decision Temporal dropped with a failed workflow task', () => {
  it('is 503 TURN_NOT_READY, decisionSent false: nothing was applied, and deciding again is safe', async () => {
    for (const { refused, updates } of await decideRunning({ polledMsAgo: 1_000, update: dropped })) {
      expect(refused).toMatchObject({
        statusCode: 503,
        code: 'TURN_NOT_READY',
        details: { workflowId: WORKFLOW_ID, taskQueue: 'convengine-turns', decisionSent: false },
      });
      expect((refused as Error).message).toContain('without applying it');
      expect(updates).toBe(1);
    }
  });
});

const { EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT: TIMED_OUT, EVENT_TYPE_WORKFLOW_TASK_FAILED: FAILED } =
  temporal.api.enums.v1.EventType;
const {
  EVENT_TYPE_WORKFLOW_TASK_SCHEDULED: SCHEDULED,
  EVENT_TYPE_WORKFLOW_TASK_STARTED: STARTED,
  EVENT_TYPE_WORKFLOW_TASK_COMPLETED: TASK_COMPLETED,
  EVENT_TYPE_WORKFLOW_EXECUTION_FAILED: EXECUTION_FAILED,
  EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED: EXECUTION_TERMINATED,
} = temporal.api.enums.v1.EventType;

describe('a decision Temporal dropped, by why its workflow task did not complete', () => {
  it('says no worker answered when the task timed out, that it failed when it failed', async () => {
    const timedOut = await decideRunning({ polledMsAgo: 1_000, update: dropped, newestEvents: [SCHEDULED, TIMED_OUT] });
    for (const { refused } of timedOut) {
      expect(refused).toMatchObject({ code: 'TURN_NOT_READY', details: { decisionSent: false } });
      expect((refused as Error).message).toContain('no worker answered its workflow task in time');
    }
    for (const { refused } of await decideRunning({ polledMsAgo: 1_000, update: dropped, newestEvents: [FAILED] })) {
      expect((refused as Error).message).toContain('its workflow task failed or is failing');
    }
  });
});

describe('a decision on a turn whose workflow task is being retried (attempt 2 or more)', () => {
  it('is not sent when no worker answered the task: 503 WORKER_UNAVAILABLE, an earlier decision kept', async () => {
    const stalled = { polledMsAgo: 1_000, workflowTaskAttempt: 3, newestEvents: [SCHEDULED, TIMED_OUT] };
    for (const { refused, updates } of await decideRunning({ ...stalled, update: neverSent })) {
      expect(refused).toMatchObject({
        statusCode: 503,
        code: 'WORKER_UNAVAILABLE',
        details: { workflowId: WORKFLOW_ID, decisionSent: false, workflowTaskAttempt: 3 },
      });
      expect((refused as Error).message).toMatch(
        /no worker answered .*A decision already sent is kept .*unless a later/
      );
      expect((refused as Error).message).toContain(
        'as its history records the first attempt; Temporal is on attempt 3, and keeps no record of how those since'
      );
      expect(updates).toBe(0);
    }
  });

  it('whose history tells no cause promises no fate for an earlier decision, and says Temporal refuses from attempt 3', async () => {
    const unknown = { polledMsAgo: 1_000, workflowTaskAttempt: 2, newestEvents: [SCHEDULED], update: neverSent };
    for (const { refused, updates } of await decideRunning(unknown)) {
      expect(refused).toMatchObject({ code: 'WORKER_UNAVAILABLE', details: { decisionSent: false } });
      const { message } = refused as Error;
      expect(message).not.toMatch(/kept and applies when a worker returns|Temporal would refuse/);
      expect(message).toContain("from a retried task's third attempt Temporal refuses a decision");
      expect(message).toContain('if a worker fails the task, Temporal drops it');
      expect(updates).toBe(0);
    }
  });

  it('that failed since (the worker came back) is refused as for the ended turn, not WORKER_UNAVAILABLE', async () => {
    const failedSince = [EXECUTION_FAILED, TASK_COMPLETED, STARTED, SCHEDULED, TIMED_OUT];
    const terminatedSince = [EXECUTION_TERMINATED, TIMED_OUT];
    for (const [newestEvents, status] of [
      [failedSince, 'FAILED'],
      [terminatedSince, 'TERMINATED'],
    ] as const) {
      const turn = { polledMsAgo: 1_000, workflowTaskAttempt: 3, newestEvents: [...newestEvents], update: neverSent };
      const approval = fakeClient({ ...turn, statuses: ['RUNNING', status] });
      expect(await approve(approval.client)).toMatchObject({
        statusCode: 409,
        code: 'APPROVAL_NOT_PENDING',
        message: `Turn 2 has ended (${status.toLowerCase()}) with no approval of any call recorded.`,
      });
      const held = fakeClient({ ...turn, statuses: ['RUNNING', status] });
      expect(await skip(held.client)).toMatchObject({ statusCode: 409, code: 'NOT_HELD' });
      expect(approval.sent.updates + held.sent.updates).toBe(0);
    }
  });

  it('whose task completed since (the worker came back) and that runs on is sent', async () => {
    for (const decide of [approve, skip]) {
      // Described on attempt 3, then (as the history said the task completed) on a first attempt of a new task.
      const resumed = { polledMsAgo: 1_000, workflowTaskAttempt: [3, 1], newestEvents: [TASK_COMPLETED, TIMED_OUT] };
      const { client, sent } = fakeClient({ ...resumed, statuses: ['RUNNING'], update: notTaken });
      expect(await decide(client)).toMatchObject({ code: 'WORKER_UNAVAILABLE', details: { decisionSent: true } });
      expect(sent.updates).toBe(1);
    }
  });

  it('is not sent when a worker fails the task: 503 TURN_NOT_READY', async () => {
    const failing = { polledMsAgo: 1_000, workflowTaskAttempt: 2, newestEvents: [FAILED] };
    for (const { refused, updates } of await decideRunning({ ...failing, update: neverSent })) {
      expect(refused).toMatchObject({ code: 'TURN_NOT_READY', details: { decisionSent: false } });
      expect((refused as Error).message).toContain('its workflow task failed or is failing');
      expect(updates).toBe(0);
    }
  });

  it('is sent on a first attempt (a task in flight)', async () => {
    for (const { refused, updates } of await decideRunning({
      polledMsAgo: 1_000,
      workflowTaskAttempt: 1,
      update: notTaken,
    })) {
      expect(refused).toMatchObject({ code: 'WORKER_UNAVAILABLE', details: { decisionSent: true } });
      expect(updates).toBe(1);
    }
  });
});

describe('a decision while Temporal does not answer', () => {
  it('is 503 TEMPORAL_UNREACHABLE naming the turn, decisionSent false', async () => {
    for (const decide of [approve, skip]) {
      const { client, sent } = fakeClient({ statuses: ['UNANSWERED'], polledMsAgo: 1_000, update: neverSent });
      expect(await decide(client)).toMatchObject({
        statusCode: 503,
        code: 'TEMPORAL_UNREACHABLE',
        details: { workflowId: WORKFLOW_ID, decisionSent: false },
      });
      expect(sent.updates).toBe(0);
    }
  });
});
