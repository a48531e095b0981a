import {
  DEMO_CONVERSATIONS,
  DEMO_MESSAGES,
  formatDemoTranscript,
  IN_PROGRESS_CONNECTION,
  runDemoConversations,
  type DemoTurnRecord,
} from '../../demo/conversations';
import { demoLlmScript } from '../../demo/recorded-llm';
import { listAudits } from '../../db/repositories/audit';
import { DemoHarness } from './demo-harness';

/**
 * The zero-setup demo (issue #7, DECISIONS P2): every seed conversation runs end to end on all
 * seed packs with recorded completions behind the real SDK — no API key — with real DB tables and
 * the demo tool server behind the tools.
 */
const TOTAL_TURNS = DEMO_CONVERSATIONS.reduce((n, c) => n + c.turns.length, 0);
const SUBMIT_ROUTE = '/loan/applications';
const LOAN_CONVERSATIONS = DEMO_CONVERSATIONS.filter((c) => c.pack === 'loan-confirmation').length;

function failures(records: readonly DemoTurnRecord[]): string {
  return formatDemoTranscript(records.filter((r) => !r.ok));
}

describe('demo conversations on the recorded LLM', () => {
  let h: DemoHarness;
  const discoRequests = async () =>
    (await h.tdb.pool.query('select * from business.zp_disco_request order by request_id')).rows as unknown[];

  beforeAll(async () => {
    h = await DemoHarness.start();
  });
  afterAll(async () => h.stop());

  it('answers every seed turn with the expected reply, intent and state, from recordings only', async () => {
    const before = await discoRequests();
    const records = await runDemoConversations(h.send);

    expect(failures(records)).toBe('');
    expect(records).toHaveLength(TOTAL_TURNS);
    expect(h.unscripted()).toEqual([]);
    expect(h.llm.requests.every((r) => r.status === 200)).toBe(true);
    expect(new Set(h.llm.requests.map((r) => r.kind))).toEqual(
      new Set(['DA', 'INTENT', 'SCHEMA', 'RESP_TEXT', 'PLAN', 'SEMANTIC_INTERPRET', 'SEMANTIC_QUERY'])
    );

    // Each loan conversation submitted its application exactly once, with its idempotency key: the confirmed,
    // edited one with 350000, the other with 35000; the edit after that submit changed and resubmitted nothing.
    expect(h.toolServer.counters.requests(SUBMIT_ROUTE)).toBe(LOAN_CONVERSATIONS);
    expect(h.toolServer.counters.totalWriteEffects()).toBe(LOAN_CONVERSATIONS);
    const submits = h.toolServer.counters.log.filter((r) => r.route === SUBMIT_ROUTE);
    expect(submits.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { customerId: '1234', requestedAmount: 350000, tenureMonths: 24 },
      { customerId: '1234', requestedAmount: 35000, tenureMonths: 24 },
    ]);
    expect(submits.every((r) => typeof r.headers['idempotency-key'] === 'string')).toBe(true);

    // The refused delete never reached SQL execution and changed nothing.
    expect(await discoRequests()).toEqual(before);
    expect(before).toHaveLength(11);
    const refusal = records.find((r) => r.user === DEMO_MESSAGES.zapperDelete);
    const audits = await listAudits(h.tdb.db, refusal?.conversationId ?? '');
    const stages = audits.filter((a) => a.turnNumber === refusal?.turn).map((a) => a.stage);
    expect(stages).toContain('MCP_FINAL_ANSWER');
    expect(stages.filter((s) => s === 'MCP_TOOL_CALL')).toHaveLength(1);
    expect(stages).not.toContain('DYNAMIC_SQL_EXECUTION');
  });

  it('passes again on the same database: in reverse order, and twice at once with conversations in parallel', async () => {
    h.llm.clearRequests();
    h.toolServer.counters.reset();
    const reversed = await runDemoConversations(h.send, { conversations: [...DEMO_CONVERSATIONS].reverse() });
    const concurrent = await Promise.all([
      runDemoConversations(h.send, { parallel: true }),
      runDemoConversations(h.send, { parallel: true, conversations: [...DEMO_CONVERSATIONS].reverse() }),
    ]);

    for (const records of [reversed, ...concurrent]) {
      expect(failures(records)).toBe('');
      expect(records).toHaveLength(TOTAL_TURNS);
    }
    expect(h.unscripted()).toEqual([]);
    // One submit per loan conversation and run, each applied once under its own key.
    const keys = h.toolServer.counters.log
      .filter((r) => r.route === SUBMIT_ROUTE)
      .map((r) => String(r.headers['idempotency-key']));
    expect(new Set(keys).size).toBe(3 * LOAN_CONVERSATIONS);
    expect(keys.every((k) => h.toolServer.counters.writeEffects(k) === 1)).toBe(true);
  });

  it('keeps every recording persistent, so no run uses up an answer', () => {
    const script = demoLlmScript();
    expect(script.length).toBeGreaterThan(0);
    expect(script.filter((e) => !e.persistent || e.times !== undefined || e.error)).toEqual([]);
    expect(h.llm.unconsumed()).toEqual([]);
  });

  it('answers from what the tools return: a changed row changes the reply, and the check reports it', async () => {
    const move = DEMO_CONVERSATIONS.filter((c) => c.name === 'move-connections');
    const setStatus = (status: string) =>
      h.tdb.pool.query('update business.move_request set status = $1 where connection_id = $2', [
        status,
        IN_PROGRESS_CONNECTION,
      ]);
    await setStatus('PENDING');
    try {
      const [first, second] = await runDemoConversations(h.send, { conversations: move });
      expect(first?.ok).toBe(true);
      expect(second).toMatchObject({
        ok: false,
        reply: `The status of your move for connection ${IN_PROGRESS_CONNECTION} is PENDING.`,
        state: 'COMPLETED',
      });
      expect(second?.mismatch).toMatch(/^reply: expected ".* is IN_PROGRESS\.", got ".* is PENDING\."$/);
    } finally {
      await setStatus('IN_PROGRESS');
    }
  });

  it('fails loudly on a message nobody recorded', async () => {
    h.llm.clearRequests();
    const unknown = 'USPSC003BA100SA277CON9999';
    await expect(
      h.send(null, {
        message: DEMO_MESSAGES.moveStatus(unknown),
        expect: { reply: '', intent: 'MOVE_CONNECTIONS', state: 'COMPLETED' },
      })
    ).rejects.toThrow(
      /LLM call PLAN failed: 400 Bad Request from the Messages API at ANTHROPIC_BASE_URL: invalid_request_error/
    );
    expect(h.llm.requests.filter((r) => r.answeredBy === null).map((r) => [r.kind, r.status])).toEqual([
      ['DA', 400],
      ['PLAN', 400],
    ]);
  });
});
