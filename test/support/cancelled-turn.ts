import { eventually } from '../devserver/harness';
import type { McpToolRow } from '../../core/config/tool-rows';
import { extracted, loanConfig, plan } from './loan-config';
import { answer } from './order-config';
import type { WorkflowHarness } from './workflow-harness';

const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
/** The route of the slow direct submit. */
export const SUBMIT = '/loan/applications';
const SLOW_TOOL_DELAY_MS = 30_000;
const TOOL_REQUEST = { tool_request: { tool_code: 'loan.application.submit', args: { customerId: 'CUST-1001' } } };

/**
 * `temporal workflow cancel` on a turn while its tool call is slow (a submit whose upstream answers after
 * `toolDelayMs`, 30 s unless said): the turn is cancelled with its tool call started, a direct one (DirectToolCall)
 * unless `planner` says the planner's (McpToolCall), with `submit` over the submit's tool row. Resolves once the turn
 * has closed, with when the submit was first sent (`submitSentAt`, epoch ms).
 */
export async function cancelDuringSlowToolCall(
  h: WorkflowHarness,
  toolDelayMs = SLOW_TOOL_DELAY_MS,
  { planner = false, submit = {} }: { planner?: boolean; submit?: Partial<McpToolRow> } = {}
) {
  // Only the activity's cancellation can end the call before the upstream answers: not the row's read timeout.
  const submitHttp = { readTimeoutMs: toolDelayMs + 30_000, maxAttempts: 1 };
  await h.mcp.configure(loanConfig({ submit: { allowDirectRequest: true, ...submit }, submitHttp }));
  const plans = planner
    ? [plan('loan.credit.rating.check', 'CUST-1001'), plan('loan.application.submit', 'CUST-1001')]
    : [];
  h.mcp.llm.setScript([extracted('CUST-1001'), ...plans, answer('Submitted.')]);
  const activityType = planner ? 'McpToolCall' : 'DirectToolCall';
  h.mcp.toolServer.faults.set(SUBMIT, { delayMs: toolDelayMs });
  const submitsBefore = h.mcp.toolServer.counters.requests(SUBMIT);
  let submitSentAt = Number.NaN;
  try {
    const conversationId = crypto.randomUUID();
    const inputParams = planner ? {} : TOOL_REQUEST;
    const request = { conversationId, message: MESSAGE, inputParams, requestContext: {} };
    const sent = await h
      .gateway({ replyTimeoutMs: 500 })
      .sendMessage({ ...request, reset: false, idempotencyKey: null });
    if (sent.kind !== 'RUNNING') throw new Error(`expected a running turn, got ${sent.kind}`);
    const handle = h.client.workflow.getHandle(sent.ref.workflowId);
    await eventually(async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      const started = pending.some((a) => a.activityType?.name === activityType && a.lastStartedTime);
      if (!started) throw new Error(`the ${activityType} has not started yet`);
      if (h.mcp.toolServer.counters.requests(SUBMIT) === submitsBefore) throw new Error('the submit has not been sent');
      submitSentAt = Date.now();
    }, 20_000);
    await handle.cancel();
    await handle.result().catch(() => undefined);
    return { handle, conversationId, workflowId: sent.ref.workflowId, turn: sent.ref.turnNumber, submitSentAt };
  } finally {
    h.mcp.toolServer.faults.clear(SUBMIT);
  }
}
