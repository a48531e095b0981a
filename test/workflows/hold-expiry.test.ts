import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../api/errors';
import { temporalHeldTools } from '../../api/turns/held-tools';
import type { McpToolRow } from '../../core/config/tool-rows';
import type { JsonObject } from '../../core/json';
import { readTurnSearchAttributes, TurnSearchAttribute } from '../../workflows/search-attributes';
import { decisionLog } from '../support/history';
import { held, heldTurnSuite } from '../support/held-turn-suite';
import { extracted, LOAN_MESSAGE, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { replayHistoryOf } from '../support/workflow-bundle';
import type { WorkflowHarness } from '../support/workflow-harness';

const SUBMIT_ROUTE = '/loan/applications';
const HOLD: Partial<McpToolRow> = {
  onRetriesExhausted: 'HOLD',
  maxAttempts: 2,
  initialIntervalMs: 100,
  holdTimeoutMs: 1_500,
};

type Events = Awaited<ReturnType<WorkflowHarness['history']>>;

/** The TurnOutcome values the turn upserted, in order. */
function outcomesUpserted(history: Events): unknown[] {
  return history.flatMap((e) => {
    const field =
      e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[
        TurnSearchAttribute.TurnOutcome
      ];
    return field ? [JSON.parse(Buffer.from(field.data ?? []).toString('utf8'))] : [];
  });
}

/**
 * #22: a held call past its hold's expiresAt is no longer held, with the real worker on our dev server: the hold
 * times out, the turn answers without the tool (as ANSWER would have), the audit trail says the hold expired, and a
 * decision that comes late is refused with 409 NOT_HELD (runbook §6), even when it reaches the turn together with the
 * fired timer (a worker away at expiry), where only the validator's own reading of the clock can refuse it.
 */
describe('a held tool call past its hold timeout (#22)', () => {
  const suite = heldTurnSuite({
    activities: (base) => base,
    script: () => [extracted('CUST-1001'), plan('loan.application.submit', 'CUST-1001'), answer('Submitted LA-1.')],
  });
  let h: WorkflowHarness;
  beforeAll(() => {
    h = suite.harness();
  });

  it('expires: the turn completes without the tool, the audit says so, and a late retry is 409 NOT_HELD', async () => {
    await h.mcp.configure(loanConfig({ submit: HOLD }));
    h.mcp.toolServer.faults.set(SUBMIT_ROUTE, { failTimes: 1_000, status: 503 });
    const parked = held(await h.send({ message: LOAN_MESSAGE }));
    // Upstream is back: a retry that got through would write.
    h.mcp.toolServer.faults.clear(SUBMIT_ROUTE);
    const id = parked.ref.workflowId;
    const handle = h.client.workflow.getHandle(id);
    const requests = h.mcp.toolServer.counters.requests(SUBMIT_ROUTE);
    const operator = temporalHeldTools(h.client, { taskQueue: h.taskQueue, decisionTimeoutMs: 20_000 });

    // No worker while the hold expires: the fired timer and the late retry reach the turn in one activation, where
    // the SDK runs the update first.
    await h.stopWorker();
    await sleep(Date.parse(parked.held.expiresAt) - Date.now() + 2_500);
    const { callIndex, expiresAt } = parked.held;
    const late = operator.resolve(id, { action: 'retry', callIndex, decidedBy: 'sre-amy' }).catch((e) => e);
    await sleep(500);
    await h.startWorker();
    const refused = await late;
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ statusCode: 409, code: 'NOT_HELD' });
    expect((refused as ApiError).message).toContain(`the hold of call #${callIndex} expired at ${expiresAt}`);

    // The expired outcome: the planner loop ends with the tool's failure, as under ANSWER.
    const result = (await handle.result()) as { context: JsonObject; outcome: string };
    expect((result.context['mcp'] as JsonObject)['lifecycle']).toMatchObject({ status: 'TOOL_ERROR', error: true });
    expect(result.outcome).toBe('TOOL_ERROR');
    expect(h.mcp.toolServer.counters.requests(SUBMIT_ROUTE)).toBe(requests);
    expect(h.mcp.toolServer.counters.totalWriteEffects()).toBe(0);

    const audits = await h.mcp.audits(parked.ref.conversationId, 1);
    expect(audits.filter((a) => a.stage === 'TOOL_HOLD_RESOLVED').map((a) => a.payload)).toEqual([
      expect.objectContaining({ tool_code: 'loan.application.submit', call_index: callIndex, action: 'expired' }),
    ]);
    const history = await h.history(id);
    // The hold expired, then its failure stands, as under ANSWER.
    expect(decisionLog(history)).toEqual([
      'TOOL_HOLD_RESOLVED: tool=loan.application.submit reason=expired',
      'TOOL_FAILED: tool=loan.application.submit reason=TOOL_HTTP_ERROR',
    ]);
    const accepted = history.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name);
    expect(accepted).not.toContain('resolveHeldTool');
    expect(history.some((e) => e.timerFiredEventAttributes)).toBe(true);
    expect(outcomesUpserted(history)).toEqual(['HELD', 'RUNNING', 'TOOL_ERROR']);
    expect(readTurnSearchAttributes((await handle.describe()).searchAttributes).turnOutcome).toBe('TOOL_ERROR');

    // Once the turn has ended, a decision is refused the same way.
    const ended = await operator.resolve(id, { action: 'markDone', result: { applicationId: 'LA-1' } }).catch((e) => e);
    expect(ended).toMatchObject({ statusCode: 409, code: 'NOT_HELD' });
    await expect(replayHistoryOf(handle)).resolves.toBeUndefined();
  });
});
