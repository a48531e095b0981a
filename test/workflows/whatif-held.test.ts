import { draftFromRows } from '../../activities/whatif/draft';
import { whatifConversation } from '../../activities/whatif/replay';
import type { McpToolRow } from '../../core/config/tool-rows';
import type { TurnDiff } from '../../core/whatif/diff';
import { readConfigRows } from '../../db/config/load';
import { held, heldTurnSuite, runSre } from '../support/held-turn-suite';
import { extracted, loanConfig, plan } from '../support/loan-config';
import { answer } from '../support/order-config';
import { type WorkflowHarness } from '../support/workflow-harness';

/**
 * What-if replays a turn whose tool call was held for an operator (#22) as it ended: the retry's result, the
 * verified result of markDone, the failure of skip and expiry, and the turn an operator failed, failed there.
 */
const MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';
const SUBMIT = '/loan/applications';
const SUBMIT_TOOL = 'loan.application.submit';
const HOLD: Partial<McpToolRow> = { onRetriesExhausted: 'HOLD', maxAttempts: 2, initialIntervalMs: 100 };
const DIRECT: Partial<McpToolRow> = { ...HOLD, allowDirectRequest: true };
const TOOL_REQUEST = { tool_request: { tool_code: SUBMIT_TOOL, args: { customerId: 'CUST-1001' } } };
const VERIFIED = '{"applicationId":"LA-90311","status":"SUBMITTED"}';

const script = () => [
  extracted('CUST-1001'),
  plan('loan.credit.rating.check', 'CUST-1001'),
  plan(SUBMIT_TOOL, 'CUST-1001'),
  answer('Submitted LA-90311.'),
];

type Resolve = string[];
const RESOLUTIONS: Record<string, Resolve> = {
  retry: ['retry', '--by', 'sre-alice'],
  markDone: ['mark-done', '--result', VERIFIED],
  skip: ['skip'],
  fail: ['fail', '--reason', 'core banking is down for the day'],
};

describe('what-if on an unchanged config: turns held for an operator replay as they ended (#22)', () => {
  const suite = heldTurnSuite({ activities: (base) => base, script });
  let h: WorkflowHarness;
  let cli: string[];
  beforeAll(() => {
    h = suite.harness();
    cli = suite.serverArgs();
  });

  /** One turn, its submit held with the upstream down, then resolved by `resolve` (none: the hold expires). */
  async function recordHeld(submit: Partial<McpToolRow>, resolve: Resolve | null, direct = false) {
    await h.mcp.configure(loanConfig({ submit }));
    h.mcp.llm.setScript(script());
    h.mcp.toolServer.faults.set(SUBMIT, { failTimes: 1_000, status: 503 });
    const parked = held(await h.send({ message: MESSAGE, inputParams: direct ? TOOL_REQUEST : {} }));
    h.mcp.toolServer.faults.clear(SUBMIT);
    const id = parked.ref.workflowId;
    if (resolve) {
      const [command, ...options] = resolve as [string, ...string[]];
      expect(await runSre([command, '--workflow-id', id, ...options, ...cli])).toMatchObject({ code: 0 });
    }
    await h.client.workflow
      .getHandle(id)
      .result()
      .catch(() => undefined);
    return parked.ref.conversationId;
  }

  async function replayed(conversationId: string, config: Parameters<typeof whatifConversation>[1]['config']) {
    const result = await whatifConversation({ db: h.mcp.db.db }, { conversationId, config });
    return result.turns;
  }

  const statuses = (turns: TurnDiff[]) => turns.map((t) => [t.status, t.changes, t.missing]);

  it.each(Object.entries(RESOLUTIONS))('a planner call resolved by %s replays "same"', async (_, resolve) => {
    const conversationId = await recordHeld(HOLD, resolve);
    const turns = await replayed(conversationId, { version: 'current' });
    expect(statuses(turns)).toEqual([['same', [], []]]);
  });

  it('a planner call whose hold expired replays "same"', async () => {
    const conversationId = await recordHeld({ ...HOLD, holdTimeoutMs: 1_500 }, null);
    expect(statuses(await replayed(conversationId, { version: 'current' }))).toEqual([['same', [], []]]);
  });

  it('the replay answers with the result the turn used, and a failed turn says an operator failed it', async () => {
    const retried = await replayed(await recordHeld(HOLD, RESOLUTIONS['retry'] as Resolve), { version: 'current' });
    expect(retried[0]?.replayed).toMatchObject({ state: 'COMPLETED', response: 'Submitted LA-90311.', error: null });
    const failed = await replayed(await recordHeld(HOLD, RESOLUTIONS['fail'] as Resolve), { version: 'current' });
    expect(failed[0]?.replayed?.response).toBeNull();
    expect(failed[0]?.replayed?.error).toBe(
      'McpToolHold: An operator failed the turn at loan.application.submit: core banking is down for the day'
    );
    expect(failed[0]?.recorded.error).toBe(failed[0]?.replayed?.error);
  });

  it.each(Object.entries(RESOLUTIONS))('a direct call resolved by %s replays "same"', async (_, resolve) => {
    const conversationId = await recordHeld(DIRECT, resolve, true);
    const turns = await replayed(conversationId, { version: 'current' });
    expect(statuses(turns)).toEqual([['same', [], []]]);
  });

  /** The current config with the submit tool edited. */
  async function draftWithSubmit(edit: Partial<McpToolRow>) {
    const rows = await readConfigRows(h.mcp.db.db);
    const mcpTools = rows.mcpTools.map((t) => (t.toolCode === SUBMIT_TOOL ? { ...t, ...edit } : t));
    return draftFromRows({ ...rows, mcpTools });
  }

  it('a draft that no longer holds the call is "changed": the failure stands and the answer differs', async () => {
    const conversationId = await recordHeld(HOLD, RESOLUTIONS['retry'] as Resolve);
    const [turn] = await replayed(conversationId, await draftWithSubmit({ onRetriesExhausted: 'ANSWER' }));
    expect(turn?.status).toBe('changed');
    expect(turn?.changes.map((c) => c.field)).toEqual(['toolsCalled', 'response']);
    expect(turn?.replayed?.response).not.toBe('Submitted LA-90311.');
  });

  it('a draft that holds a call no operator decided is "needs-operator", not guessed', async () => {
    await h.mcp.configure(loanConfig({ submit: { maxAttempts: 2, initialIntervalMs: 100 } }));
    // Recorded without a hold (ANSWER): the draft's hold was never decided.
    h.mcp.toolServer.faults.set(SUBMIT, { failTimes: 1_000, status: 503 });
    const unheld = await h.send({ message: MESSAGE });
    h.mcp.toolServer.faults.clear(SUBMIT);
    const [turn] = await replayed(unheld.ref.conversationId, await draftWithSubmit(HOLD));
    expect(turn).toMatchObject({
      status: 'needs-operator',
      missing: [{ kind: 'operator', what: `${SUBMIT_TOOL} call 2 hold 1` }],
    });
    expect(turn?.replayed?.response).toBe(turn?.recorded.response);
  });
});
