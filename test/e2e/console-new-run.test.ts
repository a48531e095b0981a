/**
 * A turn run again after a failure (an operator's retry, a reset, the next message taking its number) is a new run of
 * the same workflow id. Until that run writes its first audit row, the only rows are the failed run's: the turn's page
 * must still show the new run, which the workflow names, as the current one, and the failed run as an earlier run.
 */
import type { ConfigRows } from '../../core/config/types';
import { ConsoleBrowser } from '../support/console-browser';
import { answer, callTool, orderConfig } from '../support/order-config';

const c = ConsoleBrowser.forFile(120_000);

function withoutReplyFor(rows: Partial<ConfigRows>, state: string): Partial<ConfigRows> {
  return { ...rows, responses: (rows.responses ?? []).filter((r) => r.stateCode !== state) };
}

test('before the new run of a failed turn writes a row, its page shows it as current and the failed run as earlier', async () => {
  // No reply for COMPLETED: response resolution fails the turn, after it wrote audit rows of its run.
  await c.h.wf.mcp.configure(withoutReplyFor(orderConfig(), 'COMPLETED'));
  c.h.wf.mcp.llm.setScript([callTool('mock.order.status', { orderId: 'ORD-7017' }), answer('Order submitted.')]);
  const failed = await c.h.request('POST', '/api/v1/conversation/message', {
    json: { message: 'Check order ORD-7017 status' },
  });
  expect(failed.status).toBe(500);
  const { workflowId, runId: failedRun } = failed.json().error.details;

  // The new run, held before its first activity: on the deployment's queue with its worker stopped, it writes no row
  // (a run on another queue is another deployment's, which the console does not show).
  await c.h.wf.stopWorker();
  const next = await c.h.wf.client.workflow.start('conversationTurnV3', {
    workflowId,
    taskQueue: c.h.wf.taskQueue,
    args: [],
  });
  try {
    const view = (await c.h.request('GET', `/api/v1/console/turns/${workflowId}`)).json();
    const runsWithRows = new Set(view.audits.map((row: { runId: string | null }) => row.runId));
    expect(runsWithRows).toEqual(new Set([failedRun]));
    expect(view.story.status).toBe('RUNNING');
    expect(view.runId).toBe(next.firstExecutionRunId);
    expect(view.earlierRuns.map((run: { runId: string }) => run.runId)).toEqual([failedRun]);

    const page = await c.openTurn(workflowId);
    await page.locator(`#earlier-run-${failedRun}`).waitFor();
    expect(await page.locator('#timeline .audits').count()).toBe(0);
    await page.close();
  } finally {
    await next.terminate('test over');
  }
});
