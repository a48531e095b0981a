/**
 * An operator's decision (an approval through the gateway, a held call through temporalHeldTools) has one deadline,
 * OPERATOR_DECISION_TIMEOUT_MS, that all its Temporal calls share: a Temporal that answers each call slowly, or one
 * call never, ends the request by that deadline with the decision's own 503, not after the sum of the calls' waits.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { DecisionDeadline } from '../../../api/turns/decision-deadline';
import { sendDecision } from '../../../api/turns/decisions';
import { TemporalTurnGateway } from '../../../api/turns/gateway';
import { temporalHeldTools } from '../../../api/turns/held-tools';
import type { Database } from '../../../db/pool';
import { TURN_WORKFLOW_TYPE } from '../../../workflows/turn-type';
import { fakeTemporalClient } from '../../support/fake-temporal-client';

const CONVERSATION = '3f0c1d52-8d2a-4c7e-9d41-2a6f1b9c7e10';
const WORKFLOW_ID = `turn-${CONVERSATION}-2`;
const DECISION_TIMEOUT_MS = 3_000;
/** Under the deadline each; the describe, the pollers' read and the update take three times it together. */
const SLOW_MS = 2_000;
/** How long past its deadline a decision may take to answer on a loaded machine: well under another slow call. */
const LATE_MS = 1_500;
/** The end of a decision that did not end by its deadline, long after it. */
const STUCK_MS = 20_000;

const never = () => new Promise<never>(() => undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A client whose one turn runs, and whose every call is logged in `calls` and answered after `delayMs` of its name
 * (none: at once); the update, once answered, says no worker took it.
 */
function slowClient(
  delayMs: Record<string, number | 'never' | (() => number)>,
  workflowTaskAttempt = 1,
  refusal: () => Error = () => new Error('no worker took the update')
) {
  const calls: string[] = [];
  const slow =
    <T>(name: string, answer: () => Promise<T>) =>
    async () => {
      calls.push(name);
      const delay = delayMs[name] ?? 0;
      if (delay === 'never') return never();
      await sleep(typeof delay === 'function' ? delay() : delay);
      return answer();
    };
  const description = {
    status: { name: 'RUNNING' },
    runId: 'run-1',
    taskQueue: 'convengine-turns',
    type: TURN_WORKFLOW_TYPE,
    searchAttributes: {},
    raw: { pendingWorkflowTask: { attempt: workflowTaskAttempt } },
  };
  const handle = {
    workflowId: WORKFLOW_ID,
    describe: slow('describe', async () => description),
    executeUpdate: slow('update', () => Promise.reject(refusal())),
  };
  const client = fakeTemporalClient(handle, 1_000) as unknown as { connection: { workflowService: object } };
  const service = client.connection.workflowService as { describeTaskQueue: () => Promise<unknown> };
  service.describeTaskQueue = slow('describeTaskQueue', service.describeTaskQueue);
  const history = (client as unknown as { workflowService: { getWorkflowExecutionHistoryReverse: () => unknown } })
    .workflowService;
  history.getWorkflowExecutionHistoryReverse = slow('history', async () => ({ history: { events: [] } }));
  return { client: client as unknown as Client, calls };
}

/** A database whose every query answers no rows. */
const noRows: Database = new Proxy({} as Database, {
  get: (_target, name) => (name === 'then' ? (answer: (rows: []) => void) => answer([]) : () => noRows),
});

const approve = (client: Client) =>
  new TemporalTurnGateway({
    client,
    db: noRows,
    taskQueue: 'convengine-turns',
    replyTimeoutMs: 1_000,
    decisionTimeoutMs: DECISION_TIMEOUT_MS,
  }).decideApproval(CONVERSATION, 2, { decision: 'approve' });

const skip = (client: Client) =>
  temporalHeldTools(client, { taskQueue: 'convengine-turns', decisionTimeoutMs: DECISION_TIMEOUT_MS }).resolve(
    WORKFLOW_ID,
    { action: 'skip', decidedBy: 'sre' }
  );

/** What `decide` answered (its refusal), and how long it took; 'stuck' when it had not ended by STUCK_MS. */
async function timed(decide: () => Promise<unknown>) {
  const startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('stuck'), STUCK_MS)));
  const answer = await Promise.race([decide().catch((e: unknown) => e), stuck]);
  clearTimeout(timer);
  return { answer, tookMs: Date.now() - startedAt };
}

jest.setTimeout(4 * STUCK_MS);

describe("an operator's decision while Temporal answers slowly", () => {
  it('is not sent once the checks took its deadline: 503 TEMPORAL_UNREACHABLE, decisionSent false, by the deadline', async () => {
    for (const decide of [approve, skip]) {
      const { client, calls } = slowClient({ describe: SLOW_MS, describeTaskQueue: SLOW_MS, update: SLOW_MS });
      const { answer, tookMs } = await timed(() => decide(client));
      expect(answer).toMatchObject({
        statusCode: 503,
        code: 'TEMPORAL_UNREACHABLE',
        details: { workflowId: WORKFLOW_ID, decisionSent: false },
      });
      expect(calls).toEqual(['describe', 'describeTaskQueue']);
      expect(tookMs).toBeLessThan(DECISION_TIMEOUT_MS + LATE_MS);
    }
  });

  it('sent and never answered is 503 WORKER_UNAVAILABLE, decisionSent true, by the deadline', async () => {
    for (const decide of [approve, skip]) {
      const { client, calls } = slowClient({ update: 'never' });
      const { answer, tookMs } = await timed(() => decide(client));
      expect(answer).toMatchObject({
        statusCode: 503,
        code: 'WORKER_UNAVAILABLE',
        details: { workflowId: WORKFLOW_ID, decisionSent: true },
      });
      expect((answer as Error).message).toContain(`within ${DECISION_TIMEOUT_MS / 1000} s`);
      expect(calls).toEqual(['describe', 'describeTaskQueue', 'update']);
      expect(tookMs).toBeLessThan(DECISION_TIMEOUT_MS + LATE_MS);
    }
  });
});

describe("a decision's deadline at its edges", () => {
  it('refused for a turn that ended just before it: 409, the turn described on a deadline of its own', async () => {
    for (const [decide, code] of [
      [approve, 'APPROVAL_NOT_PENDING'],
      [skip, 'NOT_HELD'],
    ] as const) {
      const described: { turn?: { status: { name: string } } } = {};
      let startedAt = Date.now();
      // Temporal answers an update to a turn that ended while it waited as one to no turn, 300 ms before the
      // deadline (which starts after startedAt, however late a loaded machine sends the update); describing the
      // ended turn then takes 600 ms.
      const delays: Record<string, number | (() => number)> = {
        update: () => Math.max(0, startedAt + DECISION_TIMEOUT_MS - 300 - Date.now()),
      };
      const { client, calls } = slowClient(delays, 1, () => {
        if (described.turn) described.turn.status.name = 'TERMINATED';
        delays.describe = 600;
        return new WorkflowNotFoundError('workflow execution already completed', WORKFLOW_ID, undefined);
      });
      const handle = client.workflow.getHandle(WORKFLOW_ID);
      described.turn = (await handle.describe()) as unknown as { status: { name: string } };
      calls.length = 0;
      startedAt = Date.now();
      const { answer } = await timed(() => decide(client));
      expect(answer).toMatchObject({ statusCode: 409, code });
      expect(calls).toEqual(['describe', 'describeTaskQueue', 'update', 'describe']);
    }
  });

  it('that passed before the decision was sent: no call made, 503 TEMPORAL_UNREACHABLE, not "sent"', async () => {
    const { client, calls } = slowClient({});
    const deadline = new DecisionDeadline(DECISION_TIMEOUT_MS, client, Date.now() - DECISION_TIMEOUT_MS);
    const target = {
      client,
      workflowId: WORKFLOW_ID,
      taskQueue: 'convengine-turns',
      workflowType: TURN_WORKFLOW_TYPE,
      recordedPatches: [],
      deadline,
      notWaiting: () => Promise.reject(new Error('not asked')),
      refusedCode: 'NOT_PENDING',
      workflowTaskAttempt: 1,
    };
    const answer = await sendDecision(target, () => client.workflow.getHandle(WORKFLOW_ID).executeUpdate('x')).catch(
      (e: unknown) => e
    );
    expect(answer).toMatchObject({ code: 'TEMPORAL_UNREACHABLE', details: { decisionSent: false } });
    // Neither the pollers' read nor the update is sent once the deadline has passed.
    expect(calls).toEqual([]);
  });

  it('whose history read it cut off (a retried task) is 503 TEMPORAL_UNREACHABLE, not WORKER_UNAVAILABLE', async () => {
    for (const decide of [approve, skip]) {
      const { client, calls } = slowClient({ history: 'never' }, 3);
      const { answer } = await timed(() => decide(client));
      expect(answer).toMatchObject({ code: 'TEMPORAL_UNREACHABLE', details: { decisionSent: false } });
      expect(calls).toEqual(['describe', 'history']);
    }
  });

  it('rejects a call that throws at once, and leaves no timer to cancel its calls later', async () => {
    // The signal the deadline would cancel the call's Temporal calls with: a timer left behind aborts it.
    let signal: AbortSignal | undefined;
    const calls = {
      withAbortSignal: <R>(given: AbortSignal, fn: () => Promise<R>) => ((signal = given), fn()),
    };
    const deadline = new DecisionDeadline(50, calls);
    const thrown = new Error('thrown at once');
    const answer = await deadline
      .within(() => {
        throw thrown;
      })
      .catch((e: unknown) => e);
    expect(answer).toBe(thrown);
    expect(signal?.aborted).toBe(false);
    await sleep(200);
    expect(signal?.aborted).toBe(false);
  });
});
