import { randomBytes } from 'node:crypto';
import { temporalInspector } from '../../api/console/temporal-inspector';
import { turnStory } from '../../api/history/turn-story';
import { temporalHeldTools } from '../../api/turns/held-tools';
import { rootFailure } from '../../api/turns/outcome';
import { formatTimeline } from '../../cli/history/timeline';
import { operatorFailedMessage } from '../../core/mcp/hold';
import { held } from '../support/held-turn-suite';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { storedHistory } from '../support/stored-history';
import { WorkflowHarness } from '../support/workflow-harness';

/** The reason an operator gives for failing a held call: their words, which may quote the customer's case. */
const REASON_MARKER = 'MARKER-DAMSON-4471 customer disputes the loan';
const SUBMIT = '/loan/applications';

describe("an operator's reason for failing a held call, with PAYLOAD_ENCRYPTION_KEYS (docs/security.md §8)", () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await WorkflowHarness.start({ payloadEncryptionKeys: [{ id: 'k1', key: randomBytes(32) }] });
  });
  afterAll(async () => {
    await h.stop();
  });

  it('stays out of stored history; the API, the failure row and the console still read it in full', async () => {
    await h.mcp.configure(
      loanConfig({ submit: { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 } })
    );
    h.mcp.llm.setScript([
      extracted('CUST-1001'),
      plan('loan.credit.rating.check', 'CUST-1001'),
      plan('loan.application.submit', 'CUST-1001'),
      answer('Submitted.'),
    ]);
    h.mcp.toolServer.faults.set(SUBMIT, { failTimes: 1_000, status: 503 });
    const parked = held(await h.send({ message: 'Apply loan for customer CUST-1001, amount 350000 for 36 months.' }));
    h.mcp.toolServer.faults.clear(SUBMIT);
    const { workflowId } = parked.ref;
    await temporalHeldTools(h.client, { taskQueue: h.taskQueue }).resolve(workflowId, {
      action: 'fail',
      reason: REASON_MARKER,
      decidedBy: 'sre',
    });
    const failed = await h.client.workflow
      .getHandle(workflowId)
      .result()
      .catch((e: unknown) => e);

    // (Booleans: a failed expectation would print the whole binary history.)
    const stored = await storedHistory(h, workflowId);
    expect({ marker: stored.includes('MARKER-DAMSON-4471') }).toEqual({ marker: false });
    expect(stored.includes('failed: An operator failed the turn at loan.application.submit')).toBe(true);

    // The API's answer for the turn (its POST, a retried POST, GET /conversation/{id} without a row) reads it in full.
    const full = operatorFailedMessage('loan.application.submit', REASON_MARKER);
    expect(rootFailure(failed)).toEqual({ type: 'TOOL_HOLD_FAILED', message: full, retryable: false });
    // The turn's failure row (ce_audit, plain text by design) keeps it, as before.
    const audits = await h.mcp.audits(parked.ref.conversationId, 1);
    expect(audits.at(-1)).toMatchObject({ stage: 'ENGINE_KNOWN_FAILURE', payload: { errorCode: 'TOOL_HOLD_FAILED' } });
    expect(JSON.stringify(audits.at(-1)?.payload)).toContain(full);
    // The console's turn story and `convengine history` decode the history with the key, the reason in its details.
    const events = (await temporalInspector(h.client, h.taskQueue).history(workflowId))?.events ?? [];
    expect(turnStory(events).failure).toBe(`TOOL_HOLD_FAILED: ${full}`);
    expect(formatTimeline(workflowId, events).at(-1)?.trim()).toBe(`workflow FAILED: TOOL_HOLD_FAILED: ${full}`);
  });
});
