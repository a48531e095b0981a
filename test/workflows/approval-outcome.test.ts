import type { WorkflowHandle } from '@temporalio/client';
import type { TurnActivities } from '../../core/turn/activities';
import { decideApprovalUpdate } from '../../workflows/messages';
import { readTurnSearchAttributes, TurnSearchAttribute } from '../../workflows/search-attributes';
import {
  APPROVAL_REQUEST_ROW_PATCH,
  APPROVAL_RESUME_PATCH,
  PARK_POSITION_PATCH,
  PARKED_MEMO_PATCH,
} from '../../workflows/turn-versions';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { replayHistoryOf } from '../support/workflow-bundle';
import { WorkflowHarness } from '../support/workflow-harness';

const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';

/** The approved submit waits for the test to let it go, so the turn is seen running after the decision. */
class Gate {
  private open: () => void = () => undefined;
  readonly opened = new Promise<void>((resolve) => (this.open = resolve));
  release(): void {
    this.open();
  }
}

async function outcomeOf(handle: WorkflowHandle): Promise<unknown> {
  return readTurnSearchAttributes((await handle.describe()).searchAttributes).turnOutcome;
}

type Events = Awaited<ReturnType<WorkflowHarness['history']>>;

const decode = (data: Uint8Array | null | undefined): unknown => JSON.parse(Buffer.from(data ?? []).toString('utf8'));

/** The TurnOutcome values the turn upserted, in order. */
function outcomesUpserted(history: Events): unknown[] {
  return history.flatMap((e) => {
    const field =
      e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[
        TurnSearchAttribute.TurnOutcome
      ];
    return field ? [decode(field.data)] : [];
  });
}

function patchesRecorded(history: Events): unknown[] {
  return history.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [(decode(data) as { id: string }).id] : [];
  });
}

async function eventually(read: () => Promise<unknown>, expected: unknown): Promise<unknown> {
  for (let i = 0; i < 50; i++) {
    const value = await read();
    if (JSON.stringify(value) === JSON.stringify(expected)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return read();
}

/** D16: a decided approval is no pending approval any more, while the approved tool runs. */
describe('after an approval the turn is RUNNING again, like after a hold', () => {
  let gate = new Gate();
  let h: WorkflowHarness;
  beforeAll(async () => {
    const slowSubmit = (base: TurnActivities): TurnActivities => ({
      ...base,
      McpToolCall: async (input) => {
        if (input.call.toolCode === 'loan.application.submit') await gate.opened;
        return base.McpToolCall(input);
      },
    });
    h = await WorkflowHarness.start({ activities: slowSubmit });
  });
  afterAll(async () => {
    gate.release();
    await h?.stop();
  });

  async function park(finalAnswer: string) {
    gate = new Gate();
    await h.mcp.configure(loanConfig({ submitNeedsApproval: true }));
    h.mcp.llm.setScript([
      extracted('CUST-1001'),
      plan('loan.credit.rating.check', 'CUST-1001'),
      plan('loan.application.submit', 'CUST-1001'),
      answer(finalAnswer),
    ]);
    const parked = await h.send({ message: MESSAGE });
    expect(parked.kind).toBe('AWAITING_APPROVAL');
    const handle = h.client.workflow.getHandle(parked.ref.workflowId);
    // Found by where it stands while it waits, not only once it ends.
    expect(readTurnSearchAttributes((await handle.describe()).searchAttributes)).toMatchObject({
      turnOutcome: 'AWAITING_APPROVAL',
      intent: 'LOAN_APPLICATION',
      state: expect.stringMatching(/\S/),
      configVersion: expect.stringMatching(/\S/),
    });
    return handle;
  }

  it('approve: TurnOutcome AWAITING_APPROVAL → RUNNING while the approved tool runs → the answer', async () => {
    const handle = await park('Submitted LA-90311.');
    const conversationId = handle.workflowId.slice(5, 41);
    // Written as the turn parked, so the stream and GET /conversation/{id} show it while it waits.
    expect(await h.mcp.payload(conversationId, 'MCP_TOOL_APPROVAL_REQUESTED')).toMatchObject({
      tool_code: 'loan.application.submit',
      call_index: 2,
      expires_at: expect.any(String),
      // The call waits: not shown as run (the planner's CALL_TOOL had left TOOL_RESULT, toolExecuted true).
      _meta: {
        context: {
          mcp: {
            lifecycle: { status: 'AWAITING_APPROVAL', toolExecuted: false, lastToolCode: 'loan.application.submit' },
          },
        },
      },
    });
    await handle.executeUpdate(decideApprovalUpdate, { args: [{ decision: 'approve', decidedBy: 'sre-amy' }] });
    // The approved submit waits at the gate: the turn runs and waits on no one.
    expect(await eventually(() => outcomeOf(handle), 'RUNNING')).toBe('RUNNING');
    expect((await handle.describe()).status.name).toBe('RUNNING');
    // A second decision meanwhile is told the call was decided, not that the turn never waited.
    const second = await handle
      .executeUpdate(decideApprovalUpdate, { args: [{ decision: 'approve', decidedBy: 'sre-bob' }] })
      .catch((err: unknown) => err);
    expect(String((second as Error).cause ?? second)).toContain(
      'APPROVAL_ALREADY_DECIDED: call #2 was already approved'
    );
    // Typed and final, as Temporal's client (and `temporal workflow update`) reports it.
    expect((second as Error).cause).toMatchObject({ type: 'APPROVAL_ALREADY_DECIDED', nonRetryable: true });

    gate.release();
    const result = (await handle.result()) as { payload: { value: string }; outcome: string };
    expect(result.payload.value).toBe('Submitted LA-90311.');
    expect(await outcomeOf(handle)).toBe(result.outcome);
    const history = await h.history(handle.workflowId);
    expect(outcomesUpserted(history)).toEqual(['AWAITING_APPROVAL', 'RUNNING', result.outcome]);
    expect(patchesRecorded(history)).toEqual([
      APPROVAL_REQUEST_ROW_PATCH,
      PARK_POSITION_PATCH,
      PARKED_MEMO_PATCH,
      APPROVAL_RESUME_PATCH,
    ]);
    // Once: as the turn parked, not again with the decision.
    expect(await h.mcp.stages(conversationId)).toEqual(
      expect.arrayContaining(['MCP_TOOL_APPROVAL_REQUESTED', 'MCP_TOOL_APPROVAL_GRANTED'])
    );
    const requested = (await h.mcp.stages(conversationId)).filter((s) => s === 'MCP_TOOL_APPROVAL_REQUESTED');
    expect(requested).toHaveLength(1);
    await expect(replayHistoryOf(handle)).resolves.toBeUndefined();
  });

  it('reject (and so expiry, the same path): RUNNING again before the turn answers', async () => {
    const handle = await park('Not submitted.');
    await handle.executeUpdate(decideApprovalUpdate, { args: [{ decision: 'reject', decidedBy: 'sre-amy' }] });
    const result = (await handle.result()) as { outcome: string };
    const history = await h.history(handle.workflowId);
    expect(outcomesUpserted(history)).toEqual(['AWAITING_APPROVAL', 'RUNNING', result.outcome]);
    await expect(replayHistoryOf(handle)).resolves.toBeUndefined();
  });
});
