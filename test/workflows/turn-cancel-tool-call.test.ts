import { TURN_CANCELLED } from '../../workflows/turn-failure';
import { CANCELLED_TOOL_CALL_PATCH } from '../../workflows/turn-versions';
import { cancelDuringSlowToolCall } from '../support/cancelled-turn';
import { decisionLog, patchesRecorded, upsertedSearchAttributes } from '../support/history';
import { replayHistoryOf } from '../support/workflow-bundle';
import { WorkflowHarness } from '../support/workflow-harness';

let h: WorkflowHarness;
beforeAll(async () => {
  h = await WorkflowHarness.start();
});
afterAll(async () => h?.stop());

/**
 * A tool call cut by its turn's cancellation did not fail: the turn ends CANCELLED at the call, and nothing records the
 * call as the tool's failure (no TOOL_FAILED decision, no hold for an operator, no TOOL_ERROR for the planner).
 * Before, the workflow took the call's cancellation for a ToolCallFailure of type CancelledFailure.
 */
describe.each([
  ['a planner tool call', { planner: true }, 'McpToolCall'],
  [
    'a planner tool call that holds when out of retries',
    { planner: true, submit: { onRetriesExhausted: 'HOLD' } },
    'McpToolCall',
  ],
  ['a direct tool call that holds when out of retries', { submit: { onRetriesExhausted: 'HOLD' } }, 'DirectToolCall'],
] as const)('a turn cancelled during %s', (_, how, step) => {
  it('ends CANCELLED at the call, which no row or decision takes for a failure of the tool', async () => {
    const { handle, conversationId } = await cancelDuringSlowToolCall(h, 5_000, how);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const history = await h.history(handle.workflowId);
    expect(decisionLog(history)).toEqual([]);
    // It never held: TurnOutcome went from RUNNING to CANCELLED.
    const outcomes = history.flatMap((e) => {
      const fields = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
      return fields?.['TurnOutcome'] ? [upsertedSearchAttributes([e])['TurnOutcome']].flat() : [];
    });
    expect(outcomes.at(-1)).toBe('CANCELLED');
    expect(outcomes).not.toContain('HELD');
    const audits = await h.mcp.audits(conversationId, 1);
    expect(audits.at(-1)).toMatchObject({
      stage: 'ENGINE_KNOWN_FAILURE',
      payload: { errorCode: TURN_CANCELLED, step },
    });
    const stages = audits.map((a) => a.stage);
    expect(stages).not.toContain('TOOL_HELD');
    expect(audits.filter((a) => a.stage === 'TURN_DECISION')).toEqual([]);
    expect(audits.filter((a) => JSON.stringify(a.payload).includes('CancelledFailure'))).toEqual([]);
    expect(patchesRecorded(history)).toContain(CANCELLED_TOOL_CALL_PATCH);
    await expect(replayHistoryOf(handle)).resolves.toBeUndefined();
  });
});
