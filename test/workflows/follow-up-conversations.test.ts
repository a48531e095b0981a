import type { DemoTurnRecord } from '../../demo/demo-runner';
import { DEMO_MESSAGES, IN_PROGRESS_CONNECTION } from '../../demo/conversations';
import type { JsonObject } from '../../core/json';
import { listAudits, type StoredAudit } from '../../db/repositories/audit';
import { runSeedConversations } from '../support/seed-turns';
import { expectInOrder } from '../support/pipeline-harness';
import { WorkflowHarness } from '../support/workflow-harness';

/**
 * The seed's "stale move ID bug" ("Second request returns previous move result"; reference §12.2 turn 2,
 * §14 #56) on the bundled packs, as turn workflows: a follow-up after a finished answer is answered from
 * its own work — never with the answer of the turn before — in the move, zapper and loan packs.
 */
const FOLLOW_UPS = ['move-connections-follow-up', 'zapper-follow-up', 'loan-after-submit'];

describe('follow-ups after a finished answer (seed "stale move ID bug")', () => {
  let h: WorkflowHarness;
  let records: DemoTurnRecord[];
  beforeAll(async () => {
    h = await WorkflowHarness.start();
    records = await runSeedConversations(h, FOLLOW_UPS);
  });
  afterAll(async () => h?.stop());

  const turn = (conversation: string, n: number) =>
    records.find((r) => r.conversation === conversation && r.turn === n) as DemoTurnRecord;
  const auditsOf = async (r: DemoTurnRecord): Promise<StoredAudit[]> =>
    (await listAudits(h.mcp.deps.db, r.conversationId as string)).filter((a) => a.turnNumber === r.turn);
  const stagesOf = async (r: DemoTurnRecord) => (await auditsOf(r)).map((a) => a.stage);
  const payloadOf = async (r: DemoTurnRecord, stage: string) =>
    (await auditsOf(r)).find((a) => a.stage === stage)?.payload as JsonObject | undefined;

  it('answers every follow-up as expected', () => {
    expect(records.filter((r) => !r.ok).map((r) => `${r.conversation}#${r.turn}: ${r.mismatch}`)).toEqual([]);
  });

  it('move: a follow-up naming only another connection goes back to MOVE_STATUS and is looked up', async () => {
    const second = turn('move-connections-follow-up', 2);
    expect(second).toMatchObject({
      user: DEMO_MESSAGES.moveFollowUp(IN_PROGRESS_CONNECTION),
      reply: `The status of your move for connection ${IN_PROGRESS_CONNECTION} is IN_PROGRESS.`,
      state: 'COMPLETED',
    });
    expect(await payloadOf(second, 'INTENT_CLASSIFICATION_MATCHED')).toMatchObject({
      classifierId: 21,
      state: 'MOVE_STATUS',
    });
    expectInOrder(await stagesOf(second), [
      'MCP_CONTEXT_CLEARED',
      'MCP_PLAN_LLM_INPUT',
      'MCP_TOOL_CALL',
      'MCP_DB_SQL_EXECUTION',
      'MCP_FINAL_ANSWER',
      'RESPONSE_EXACT',
    ]);
    expect(await payloadOf(second, 'MCP_DB_SQL_EXECUTION')).toMatchObject({
      params: { connection_id: IN_PROGRESS_CONNECTION },
      row_count: 1,
    });
  });

  it('zapper: a plain-words delete after an answer is analyzed anew and refused before any SQL', async () => {
    const second = turn('zapper-follow-up', 2);
    expect(second.reply).not.toMatch(/Found 7/);
    const stages = await stagesOf(second);
    expectInOrder(stages, [
      'INTENT_CLASSIFICATION_MATCHED',
      'MCP_CONTEXT_CLEARED',
      'MCP_PLAN_LLM_INPUT',
      'MCP_TOOL_CALL',
      'MCP_FINAL_ANSWER',
      'RESOLVE_RESPONSE_LLM_INPUT',
    ]);
    expect(stages).not.toContain('DYNAMIC_SQL_EXECUTION');
    expect(await payloadOf(second, 'INTENT_CLASSIFICATION_MATCHED')).toMatchObject({
      classifierId: 70,
      state: 'ANALYZE',
    });
    expect(await payloadOf(second, 'MCP_FINAL_ANSWER')).toMatchObject({ reason: 'SEMANTIC_UNSUPPORTED' });
    // The summary the response LLM is asked for is of this turn's answer (the memory summary may recall the last).
    const derived = await payloadOf(second, 'RESOLVE_RESPONSE_LLM_INPUT');
    expect(derived?.['user_prompt']).toMatch(/\nAnswer from the data: Deleting disconnect requests is not supported/);
    expect(derived?.['user_prompt']).not.toMatch(/Answer from the data: [^\n]*Found 7/);
  });

  it('loan: an edit after the submit is told the application is processed, submits nothing, repeats nothing', async () => {
    const third = turn('loan-after-submit', 3);
    expect(third.state).toBe('CLOSED');
    expect(third.reply).not.toMatch(/submitted|LA-90311|\b5000\b/);
    const stages = await stagesOf(third);
    expect(stages).not.toContain('MCP_PLAN_LLM_INPUT');
    expect(stages).not.toContain('RESOLVE_RESPONSE_LLM_INPUT');
    expect(await payloadOf(third, 'MCP_CONTEXT_CLEARED')).toMatchObject({
      reason: 'PLANNER_SKIPPED',
      skipReason: 'SKIPPED_DIALOGUE_ACT',
      cleared: expect.arrayContaining(['finalAnswer', 'observations']),
    });
    expect(h.mcp.toolServer.counters.requests('/loan/applications')).toBe(1);
    const persisted = await h.mcp.deps.db.$client.query<{ context_json: JsonObject }>(
      'SELECT context_json FROM ce_conversation WHERE conversation_id = $1',
      [third.conversationId]
    );
    const context = persisted.rows[0]?.context_json ?? {};
    expect(context).toMatchObject({ customerId: '1234', requestedAmount: 35000 });
    expect(context['mcp']).toEqual({ lifecycle: expect.objectContaining({ status: 'SKIPPED_DIALOGUE_ACT' }) });
  });
});
