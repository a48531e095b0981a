import { eventually } from '../devserver/harness';
import type { McpToolRow } from '../../core/config/tool-rows';
import { turnProgressQuery, TurnStatus } from '../../workflows/messages';
import { readTurnSearchAttributes } from '../../workflows/search-attributes';
import { extracted, loanConfig, plan } from './loan-config';
import { answer } from './order-config';
import type { WorkflowHarness } from './workflow-harness';

const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
/** The route of the slow direct submit. */
export const SUBMIT = '/loan/applications';
const SLOW_TOOL_DELAY_MS = 30_000;
const TOOL_REQUEST = { tool_request: { tool_code: 'loan.application.submit', args: { customerId: 'CUST-1001' } } };

/** A write applied at most once, answered by the tool's failure when out of retries (ANSWER, not HOLD). */
export const WRITE_ONCE: Partial<McpToolRow> = { sideEffect: 'NON_IDEMPOTENT_WRITE', onRetriesExhausted: 'ANSWER' };

/** Which slow tool call: a direct one (DirectToolCall) unless `planner` says the planner's (McpToolCall). */
export interface SlowToolCall {
  planner?: boolean;
  /** Over the submit's tool row. */
  submit?: Partial<McpToolRow>;
}

/**
 * A turn whose tool call is slow (a submit whose upstream answers after `toolDelayMs`, 30 s unless said), started and
 * returned once its tool call has started and sent the submit, with when it was sent (`submitSentAt`, epoch ms). The
 * submit's delay stays set: the caller clears it (`h.mcp.toolServer.faults.clear(SUBMIT)`).
 */
export async function startSlowToolCall(
  h: WorkflowHarness,
  toolDelayMs = SLOW_TOOL_DELAY_MS,
  { planner = false, submit = {} }: SlowToolCall = {}
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
  const conversationId = crypto.randomUUID();
  const inputParams = planner ? {} : TOOL_REQUEST;
  const request = { conversationId, message: MESSAGE, inputParams, requestContext: {} };
  const sent = await h.gateway({ replyTimeoutMs: 500 }).sendMessage({ ...request, reset: false, idempotencyKey: null });
  if (sent.kind !== 'RUNNING') throw new Error(`expected a running turn, got ${sent.kind}`);
  const handle = h.client.workflow.getHandle(sent.ref.workflowId);
  await eventually(async () => {
    const pending = (await handle.describe()).raw.pendingActivities ?? [];
    const started = pending.some((a) => a.activityType?.name === activityType && a.lastStartedTime);
    if (!started) throw new Error(`the ${activityType} has not started yet`);
    if (h.mcp.toolServer.counters.requests(SUBMIT) === submitsBefore) throw new Error('the submit has not been sent');
    submitSentAt = Date.now();
  }, 20_000);
  return { handle, conversationId, workflowId: sent.ref.workflowId, turn: sent.ref.turnNumber, submitSentAt };
}

/**
 * `temporal workflow cancel` on a turn while its tool call is slow (startSlowToolCall). Resolves once the turn has
 * closed.
 */
export async function cancelDuringSlowToolCall(
  h: WorkflowHarness,
  toolDelayMs = SLOW_TOOL_DELAY_MS,
  how: SlowToolCall = {}
) {
  try {
    const started = await startSlowToolCall(h, toolDelayMs, how);
    await started.handle.cancel();
    await started.handle.result().catch(() => undefined);
    return started;
  } finally {
    h.mcp.toolServer.faults.clear(SUBMIT);
  }
}

/**
 * A stopping worker cuts the slow tool call (startSlowToolCall): the worker stops while the call waits on its upstream,
 * which the attempt reports as WorkerShutdown, and a new worker takes the turn on. Resolves once the turn no longer
 * runs (held, or closed), with its progress then. The submit's delay is cleared.
 */
export async function cutByWorkerStop(h: WorkflowHarness, toolDelayMs: number, how: SlowToolCall = {}) {
  try {
    const started = await startSlowToolCall(h, toolDelayMs, how);
    await h.stopWorker();
    await h.startWorker();
    // Waited for from Temporal's record, not by queries: a query carried by the task that runs the hold's local activity
    // can split it (sdk-core answers the query, the activity's marker goes with the answer, what follows it in the next
    // task), and that history does not replay; on the real server too (test/devserver/query-during-local-activity).
    await eventually(async () => {
      const turn = await started.handle.describe();
      const outcome = readTurnSearchAttributes(turn.searchAttributes).turnOutcome;
      if (turn.status.name === 'RUNNING' && outcome !== TurnStatus.Held) throw new Error('the turn is still running');
    }, 30_000);
    return { ...started, progress: await started.handle.query(turnProgressQuery) };
  } finally {
    h.mcp.toolServer.faults.clear(SUBMIT);
  }
}
