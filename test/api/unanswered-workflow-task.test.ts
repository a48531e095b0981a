/**
 * A worker that polls and never answers (frozen with SIGSTOP, overloaded): a decision sent waits, and Temporal keeps
 * it while the turn's workflow task times out again and again. A second decision then is not sent: Temporal refuses an
 * update once the task keeps timing out, and drops with it the one it admitted. The first is applied, once, by the
 * worker that comes back.
 */
import { temporal } from '@temporalio/proto';
import { turnWorkerIdentity } from '../../observability/turn-pollers';
import { ApiHarness } from '../support/api-harness';
import { LOAN_MESSAGE, scriptSubmitAwaitingApproval } from '../support/loan-config';

const DECISION_TIMEOUT_MS = 1_500;
/** Long enough for the turn's workflow task to time out twice (10 s each) and be on its third attempt. */
const THIRD_ATTEMPT_WITHIN_MS = 60_000;

/** Polls `taskQueue` for workflow tasks as a worker of this build would, and answers none, until `stop`. */
function silentPoller(h: ApiHarness) {
  const stopped = new AbortController();
  const { client } = h.wf;
  const poll = () =>
    client.connection.withAbortSignal(stopped.signal, () =>
      // Temporal's server refuses a long poll without a deadline; a worker's is 70 s.
      client.connection.withDeadline(Date.now() + 70_000, () =>
        client.workflowService.pollWorkflowTaskQueue({
          namespace: client.options.namespace,
          taskQueue: { name: h.wf.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          identity: turnWorkerIdentity('4@frozen-worker'),
        })
      )
    );
  const polling = (async () => {
    // A task polled is left unanswered: Temporal times it out, as it does one a frozen worker holds.
    while (!stopped.signal.aborted) await poll().catch(() => undefined);
  })();
  return {
    async stop() {
      stopped.abort();
      await polling;
    },
  };
}

describe('a decision while the turn worker polls and never answers', () => {
  let h: ApiHarness;
  const auth = { authorization: 'Bearer sre-token' };

  beforeAll(async () => {
    h = await ApiHarness.start({ apiToken: 'sre-token', decisionTimeoutMs: DECISION_TIMEOUT_MS });
  });
  afterAll(async () => h?.stop());

  it('a second decision is refused unsent (503, decisionSent false), and the first is applied once', async () => {
    await scriptSubmitAwaitingApproval(h.wf.mcp);
    const parked = await h.request('POST', '/api/v1/conversation/message', {
      json: { message: LOAN_MESSAGE },
      headers: auth,
    });
    expect(parked.status).toBe(202);
    const { conversationId, turn, approval } = parked.json();
    await h.wf.stopWorker();
    const frozen = silentPoller(h);
    const decide = (reason: string) =>
      h.request('POST', `/api/v1/conversation/${conversationId}/turns/${turn.number}/approval`, {
        json: { decision: 'approve', reason, callIndex: approval.callIndex },
        headers: auth,
      });
    try {
      const first = await decide('first');
      expect(first.status).toBe(503);
      expect(first.json().error).toMatchObject({ code: 'WORKER_UNAVAILABLE', details: { decisionSent: true } });

      const handle = h.wf.client.workflow.getHandle(turn.workflowId);
      const attempt = async () => (await handle.describe()).raw.pendingWorkflowTask?.attempt ?? 0;
      const waitedFrom = Date.now();
      while ((await attempt()) < 3) {
        expect(Date.now() - waitedFrom).toBeLessThan(THIRD_ATTEMPT_WITHIN_MS);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }

      const second = await decide('second');
      expect(second.status).toBe(503);
      expect(second.json().error).toMatchObject({
        code: 'WORKER_UNAVAILABLE',
        details: { workflowId: turn.workflowId, decisionSent: false },
      });
      expect(second.json().error.message).toMatch(/no worker answered its workflow task .*already sent is kept/);
    } finally {
      await frozen.stop();
    }

    await h.wf.startWorker();
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      h.wf.client.workflow.getHandle(turn.workflowId).result(),
      new Promise((resolve) => (timer = setTimeout(() => resolve('still parked'), 30_000))),
    ]);
    clearTimeout(timer);
    expect(ended).not.toBe('still parked');
    expect(await h.wf.mcp.payload(conversationId, 'MCP_TOOL_APPROVAL_GRANTED')).toMatchObject({ reason: 'first' });
    expect(h.wf.mcp.toolServer.counters.totalWriteEffects()).toBe(1);
  });
});
