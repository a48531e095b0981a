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
}

/** A client whose one turn describes, polls and takes updates as `turn` says; `sent` counts updates sent. */
function fakeClient(turn: FakeTurn) {
  const sent = { updates: 0 };
  const describe = async () => {
    const name = turn.statuses.length > 1 ? turn.statuses.shift() : turn.statuses[0];
    if (name === 'NONE') throw new WorkflowNotFoundError('not found', WORKFLOW_ID, undefined);
    const searchAttributes = turn.patches ? { TemporalChangeVersion: turn.patches } : {};
    const type = turn.type ?? TURN_WORKFLOW_TYPE;
    return { status: { name }, runId: 'run-1', taskQueue: 'convengine-turns', type, searchAttributes };
  };
  const handle = {
    workflowId: WORKFLOW_ID,
    describe,
    executeUpdate: () => {
      sent.updates++;
      return turn.update();
    },
  };
  const client = fakeTemporalClient(handle, turn.polledMsAgo, turn.poller);
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
