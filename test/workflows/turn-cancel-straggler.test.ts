import { asyncLocalStorage, Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { RUN_ENDED } from '../../activities/runtime/failure';
import type { TurnActivities } from '../../core/turn/activities';
import { TURN_CANCELLED } from '../../workflows/turn-failure';
import { cancelDuringSlowToolCall, SUBMIT } from '../support/cancelled-turn';
import { WorkflowHarness } from '../support/workflow-harness';

let settle: (outcome: unknown) => void = () => undefined;
/** How the DirectToolCall attempt ended: its result, or what it threw. */
const ended = new Promise<unknown>((resolve) => (settle = resolve));

/**
 * The DirectToolCall activity as it runs until its cancellation arrives: it learns of it only from a heartbeat's
 * answer, up to about 10 s after the cancel (docs/architecture.md). Here it never does: its context's signal stays
 * unaborted (the real one still heartbeats), so its tool call runs to the answer and it goes on to write its rows.
 */
function deafToCancellation(run: TurnActivities['DirectToolCall']): TurnActivities['DirectToolCall'] {
  return (input) => {
    const real = Context.current();
    const deaf = new Context(
      real.info,
      new Promise<never>(() => undefined),
      new AbortController().signal,
      (details?: unknown) => real.heartbeat(details),
      undefined,
      real.log,
      real.metricMeter,
      { details: undefined }
    );
    const attempt = asyncLocalStorage.run(deaf, () => run(input));
    attempt.then(settle, settle);
    return attempt;
  };
}

let h: WorkflowHarness;
beforeAll(async () => {
  // The harness builds the activities anew for each call.
  h = await WorkflowHarness.start({
    activities: (base) => ({ ...base, DirectToolCall: deafToCancellation(base.DirectToolCall) }),
  });
});
afterAll(async () => h?.stop());

it("a tool step that answers after its turn's TURN_CANCELLED, not knowing yet, writes nothing and ends, not retried", async () => {
  const submitsBefore = h.mcp.toolServer.counters.requests(SUBMIT);
  const { conversationId, handle } = await cancelDuringSlowToolCall(h, 4_000);
  const runId = (await handle.describe()).runId;
  // The tool answered and the attempt went on to write its rows.
  const outcome = await ended;
  const audits = await h.mcp.audits(conversationId, 1);
  const cancelled = audits.find((a) => a.payload['errorCode'] === TURN_CANCELLED);
  expect(cancelled).toMatchObject({ stage: 'ENGINE_KNOWN_FAILURE', runId, payload: { step: 'DirectToolCall' } });
  const ofRun = audits.filter((a) => a.runId === runId);
  expect(ofRun.filter((a) => a.auditId > (cancelled?.auditId ?? 0)).map((a) => a.stage)).toEqual([]);
  expect(audits.at(-1)).toEqual(cancelled);
  // Nothing of the step's one batch (its STEP_ENTER… STEP_EXIT, its tool rows) was written, before the row either.
  expect(ofRun.filter((a) => a.idempotencyKey.includes('-direct-tool/'))).toEqual([]);
  // Refused, the attempt ends as its run has: not a failure to retry.
  expect(outcome).toBeInstanceOf(ApplicationFailure);
  expect(outcome).toMatchObject({ type: RUN_ENDED, nonRetryable: true, category: ApplicationFailureCategory.BENIGN });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(h.mcp.toolServer.counters.requests(SUBMIT)).toBe(submitsBefore + 1);
});
