import { WorkflowFailedError } from '@temporalio/client';
import { TOOL_HOLD_FAILED } from '../../core/mcp/hold';
import { resolveHeldToolUpdate, TurnStatus } from '../../workflows/messages';
import { readTurnSearchAttributes } from '../../workflows/search-attributes';
import { SHUTDOWN_CUT_WRITE_PATCH } from '../../workflows/turn-versions';
import { cutByWorkerStop, WRITE_ONCE } from '../support/cancelled-turn';
import { decisionLog, patchesRecorded } from '../support/history';
import { replayHistoryOf } from '../support/workflow-bundle';
import { WorkflowHarness } from '../support/workflow-harness';

let h: WorkflowHarness;
beforeAll(async () => {
  h = await WorkflowHarness.start();
});
afterAll(async () => h?.stop());

/**
 * A stopping worker cuts the only attempt of a NON_IDEMPOTENT_WRITE after its request left: sdk-core reports the attempt
 * as WorkerShutdown, and nobody knows whether the write happened. The turn holds the call for an operator, as it does a
 * timed-out attempt (runbook §6), instead of answering with the failure as if the write had not happened.
 */
describe.each([
  ['a planner tool call', { planner: true }, 2],
  ['a direct tool call', { planner: false }, 0],
] as const)('%s of a NON_IDEMPOTENT_WRITE cut by a worker stop on its last attempt', (_, how, callIndex) => {
  it('is held for an operator with its outcome unknown, and the held history replays', async () => {
    const { handle, conversationId, progress } = await cutByWorkerStop(h, 5_000, { ...how, submit: WRITE_ONCE });
    expect(progress.status).toBe(TurnStatus.Held);
    expect(progress.held).toMatchObject({
      toolCode: 'loan.application.submit',
      callIndex,
      attempts: 1,
      failureType: 'WorkerShutdown',
      outcomeUnknown: true,
    });
    expect(readTurnSearchAttributes((await handle.describe()).searchAttributes).turnOutcome).toBe('HELD');
    const audits = await h.mcp.audits(conversationId, 1);
    expect(audits.find((a) => a.stage === 'TOOL_HELD')?.payload).toMatchObject({
      error_class: 'WorkerShutdown',
      outcome_unknown: true,
    });
    // The operator's answer to an unknown outcome: verify upstream, then mark it done or fail the turn.
    await handle.executeUpdate(resolveHeldToolUpdate, { args: [{ action: 'fail', reason: 'not applied', callIndex }] });
    const failure = await handle.result().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(JSON.stringify((failure as WorkflowFailedError).cause)).toContain(TOOL_HOLD_FAILED);
    const history = await h.history(handle.workflowId);
    // Never taken for the tool's failure (TOOL_FAILED); the operator's fail ends the turn at the hold.
    expect(decisionLog(history)).toEqual([]);
    expect(patchesRecorded(history)).toContain(SHUTDOWN_CUT_WRITE_PATCH);
    await expect(replayHistoryOf(handle)).resolves.toBeUndefined();
  });
});
