import { TURN_CANCELLED } from '../../workflows/turn-failure';
import { readTurnSearchAttributes } from '../../workflows/search-attributes';
import {
  CANCELLED_OUTCOME_PATCH,
  CANCELLED_TOOL_CALL_PATCH,
  TURN_CANCELLED_ROW_PATCH,
  TURN_FAILURE_OUTLASTS_OUTAGE_PATCH,
} from '../../workflows/turn-versions';
import { eventually } from '../devserver/harness';
import { cancelDuringSlowToolCall, SUBMIT } from '../support/cancelled-turn';
import { replayHistoryOf } from '../support/workflow-bundle';
import { WorkflowHarness } from '../support/workflow-harness';

const decode = (data: Uint8Array | null | undefined): unknown => JSON.parse(Buffer.from(data ?? []).toString('utf8'));

let h: WorkflowHarness;
beforeAll(async () => {
  h = await WorkflowHarness.start();
});
afterAll(async () => h?.stop());

/** `temporal workflow cancel` ends the turn's trail as any ended turn's: with its failure row, the stream's end event. */
it('a turn cancelled during a slow tool call writes TURN_CANCELLED, not retryable, then ends CANCELLED', async () => {
  const { handle, conversationId } = await cancelDuringSlowToolCall(h);
  expect((await handle.describe()).status.name).toBe('CANCELLED');
  const audits = await h.mcp.audits(conversationId, 1);
  const last = audits.at(-1);
  expect(last?.stage).toBe('ENGINE_KNOWN_FAILURE');
  expect(last?.payload).toMatchObject({ errorCode: TURN_CANCELLED, step: 'DirectToolCall', recoverable: false });
  const history = await h.history(handle.workflowId);
  const patches = history.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [(decode(data) as { id: string }).id] : [];
  });
  // The call's cancellation ends the turn, not taken for the tool's failure (turn-cancel-tool-call.test.ts). The row is
  // written by TurnFailure as any failed turn's is: a regular activity that outlasts a database outage. Then its
  // TurnOutcome says so, for a query by it to find the turn.
  expect(patches).toEqual([
    CANCELLED_TOOL_CALL_PATCH,
    TURN_CANCELLED_ROW_PATCH,
    TURN_FAILURE_OUTLASTS_OUTAGE_PATCH,
    CANCELLED_OUTCOME_PATCH,
  ]);
  await expect(replayHistoryOf(handle)).resolves.toBeUndefined();
});

it("a cancelled turn's TurnOutcome is CANCELLED, with where it stood, and a query by it finds the turn", async () => {
  const { handle } = await cancelDuringSlowToolCall(h, 5_000);
  expect(readTurnSearchAttributes((await handle.describe()).searchAttributes)).toMatchObject({
    turnOutcome: 'CANCELLED',
    intent: 'LOAN_APPLICATION',
    state: expect.stringMatching(/\S/),
    configVersion: expect.stringMatching(/\S/),
  });
  const query = `TurnOutcome = 'CANCELLED' AND WorkflowId = '${handle.workflowId}'`;
  await eventually(async () => {
    const found: string[] = [];
    for await (const run of h.client.workflow.list({ query })) found.push(run.status.name);
    expect(found).toEqual(['CANCELLED']);
  }, 10_000);
});

/**
 * The tool activity learns of the cancel from its heartbeat: its signal cuts the upstream call, and the attempt writes
 * nothing after the turn's failure row, also once the tool would have answered (docs/architecture.md, "Cancelling a
 * turn").
 */
it('a cancelled turn cuts its tool call upstream, and its step writes no row after TURN_CANCELLED', async () => {
  const toolDelayMs = 15_000;
  // This turn's requests only: an earlier test's cut call can hang up late, once its activity hears of the cancel.
  const since = h.mcp.toolServer.counters.received();
  const { conversationId, submitSentAt } = await cancelDuringSlowToolCall(h, toolDelayMs);
  // Within the tool's delay: the tool server sees the connection closed before it answered.
  await eventually(async () => expect(h.mcp.toolServer.counters.hangUpsOn(SUBMIT, since)).toBe(1), 12_000);
  // The answer the call would have had has come and gone; the step would have written its rows by now.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, submitSentAt + toolDelayMs + 2_000 - Date.now())));
  const audits = await h.mcp.audits(conversationId, 1);
  expect(audits.at(-1)?.stage).toBe('ENGINE_KNOWN_FAILURE');
  expect(audits.at(-1)?.payload).toMatchObject({ errorCode: TURN_CANCELLED });
  expect(audits.filter((a) => a.stage === 'ENGINE_KNOWN_FAILURE')).toHaveLength(1);
});
