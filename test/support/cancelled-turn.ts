import { eventually } from '../devserver/harness';
import { extracted, loanConfig } from './loan-config';
import { answer } from './order-config';
import type { WorkflowHarness } from './workflow-harness';

const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const SUBMIT = '/loan/applications';
const TOOL_REQUEST = { tool_request: { tool_code: 'loan.application.submit', args: { customerId: 'CUST-1001' } } };

/**
 * `temporal workflow cancel` on a turn while its tool call is slow (a direct submit whose upstream takes 30 s): the
 * turn is cancelled with its DirectToolCall started. Resolves once the turn has closed.
 */
export async function cancelDuringSlowToolCall(h: WorkflowHarness) {
  await h.mcp.configure(loanConfig({ submit: { allowDirectRequest: true } }));
  h.mcp.llm.setScript([extracted('CUST-1001'), answer('Submitted.')]);
  h.mcp.toolServer.faults.set(SUBMIT, { delayMs: 30_000 });
  try {
    const conversationId = crypto.randomUUID();
    const request = { conversationId, message: MESSAGE, inputParams: TOOL_REQUEST, requestContext: {} };
    const sent = await h
      .gateway({ replyTimeoutMs: 500 })
      .sendMessage({ ...request, reset: false, idempotencyKey: null });
    if (sent.kind !== 'RUNNING') throw new Error(`expected a running turn, got ${sent.kind}`);
    const handle = h.client.workflow.getHandle(sent.ref.workflowId);
    await eventually(async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      const started = pending.some((a) => a.activityType?.name === 'DirectToolCall' && a.lastStartedTime);
      if (!started) throw new Error('the DirectToolCall has not started yet');
    }, 20_000);
    await handle.cancel();
    await handle.result().catch(() => undefined);
    return { handle, conversationId, workflowId: sent.ref.workflowId, turn: sent.ref.turnNumber };
  } finally {
    h.mcp.toolServer.faults.clear(SUBMIT);
  }
}
