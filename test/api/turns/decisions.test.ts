/**
 * Operators' decisions (an approval through the gateway, a held call through temporalHeldTools) are refused the
 * same ways: a turn that ended while the decision was sent is 409, not a 500; no worker polling its task queue is
 * 503 WORKER_UNAVAILABLE before anything is sent; a decision no worker took in time is the same 503, saying so.
 */
import { WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError, type Client } from '@temporalio/client';
import { TemporalTurnGateway } from '../../../api/turns/gateway';
import { temporalHeldTools } from '../../../api/turns/held-tools';
import type { Database } from '../../../db/pool';
import { fakeTemporalClient } from '../../support/fake-temporal-client';

const CONVERSATION = '3f0c1d52-8d2a-4c7e-9d41-2a6f1b9c7e10';
const WORKFLOW_ID = `turn-${CONVERSATION}-2`;

interface FakeTurn {
  /** Status names describe answers, in turn; the last one repeats. */
  statuses: string[];
  /** When the worker last polled, ms ago. */
  polledMsAgo: number;
  update(): Promise<unknown>;
}

/** A client whose one turn describes, polls and takes updates as `turn` says; `sent` counts updates sent. */
function fakeClient(turn: FakeTurn) {
  const sent = { updates: 0 };
  const describe = async () => {
    const name = turn.statuses.length > 1 ? turn.statuses.shift() : turn.statuses[0];
    if (name === 'NONE') throw new WorkflowNotFoundError('not found', WORKFLOW_ID, undefined);
    return { status: { name }, runId: 'run-1', taskQueue: 'convengine-turns' };
  };
  const handle = {
    workflowId: WORKFLOW_ID,
    describe,
    executeUpdate: () => {
      sent.updates++;
      return turn.update();
    },
  };
  const client = fakeTemporalClient(handle, turn.polledMsAgo);
  return { client, sent };
}

const approve = (client: Client) =>
  new TemporalTurnGateway({ client, db: {} as Database, taskQueue: 'convengine-turns', replyTimeoutMs: 1_000 })
    .decideApproval(CONVERSATION, 2, { decision: 'approve' })
    .catch((e: unknown) => e);

const skip = (client: Client) =>
  temporalHeldTools(client)
    .resolve(WORKFLOW_ID, { action: 'skip', decidedBy: 'sre' })
    .catch((e: unknown) => e);

const closing = () =>
  Promise.reject(new WorkflowNotFoundError('workflow update was aborted by closing workflow', WORKFLOW_ID, 'run-1'));

describe('a decision racing the end of its turn', () => {
  it('is 409 APPROVAL_NOT_PENDING for an approval and 409 NOT_HELD for a held call, not a 500', async () => {
    const ended = () => fakeClient({ statuses: ['RUNNING', 'COMPLETED'], polledMsAgo: 1_000, update: closing });
    expect(await approve(ended().client)).toMatchObject({ statusCode: 409, code: 'APPROVAL_NOT_PENDING' });
    expect(await skip(ended().client)).toMatchObject({ statusCode: 409, code: 'NOT_HELD' });
  });

  it('is 404 TURN_NOT_FOUND when the turn is gone altogether', async () => {
    const gone = () => fakeClient({ statuses: ['RUNNING', 'NONE'], polledMsAgo: 1_000, update: closing });
    expect(await approve(gone().client)).toMatchObject({ statusCode: 404, code: 'TURN_NOT_FOUND' });
    expect(await skip(gone().client)).toMatchObject({ statusCode: 404, code: 'TURN_NOT_FOUND' });
  });
});

describe('a decision without a worker', () => {
  it('is not sent when no worker polled the task queue of the turn lately: 503 WORKER_UNAVAILABLE, decisionSent false', async () => {
    for (const decide of [approve, skip]) {
      const { client, sent } = fakeClient({
        statuses: ['RUNNING'],
        polledMsAgo: 5 * 60_000,
        update: () => Promise.reject(new Error('the decision was sent')),
      });
      const refused = await decide(client);
      expect(refused).toMatchObject({
        statusCode: 503,
        code: 'WORKER_UNAVAILABLE',
        details: { workflowId: WORKFLOW_ID, taskQueue: 'convengine-turns', decisionSent: false },
      });
      expect((refused as Error).message).toContain('Nothing was sent');
      expect(sent.updates).toBe(0);
    }
  });

  it('that no worker took within the deadline is 503 WORKER_UNAVAILABLE saying it may still be applied', async () => {
    for (const decide of [approve, skip]) {
      const { client, sent } = fakeClient({
        statuses: ['RUNNING'],
        polledMsAgo: 10_000,
        update: () => Promise.reject(new WorkflowUpdateRPCTimeoutOrCancelledError('deadline exceeded')),
      });
      const refused = await decide(client);
      expect(refused).toMatchObject({ statusCode: 503, code: 'WORKER_UNAVAILABLE', details: { decisionSent: true } });
      expect((refused as Error).message).toMatch(/within 10 s.*may still be applied when a worker returns/);
      expect(sent.updates).toBe(1);
    }
  });
});
