import { seedPack } from '../../db/seed';
import { PipelineHarness } from '../support/pipeline-harness';

/** Seed 004 FAQ (§12.1): answered from ce_response, never through the MCP planner. */
describe('FAQ seed pack', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start();
    await seedPack(h.tdb.db, 'faq');
    await h.store.refresh();
  });
  afterAll(async () => h.stop());

  it('greets, then answers the move question with the EXACT text and no MCP planner stages', async () => {
    const first = await h.turn({ message: 'hi' });
    expect(first).toMatchObject({
      intent: 'GREETING',
      state: 'IDLE',
      payload: { value: 'Hi, how can I help you today?' },
    });
    h.llm.push([
      {
        kind: 'DA',
        reply: {
          dialogueAct: 'QUESTION',
          confidence: 0.92,
          standaloneQuery: 'Can I move my connections within zapper?',
        },
      },
    ]);
    const second = await h.turn({
      conversationId: first.conversationId,
      message: 'Can I move my connections within zapper?',
    });
    expect(second).toMatchObject({
      intent: 'FAQ',
      state: 'IDLE',
      payload: { type: 'TEXT', value: 'Yes, internal account moves are supported.' },
    });
    const stages = await h.stages(first.conversationId, 2);
    for (const stage of [
      'MCP_CONTEXT_CLEARED',
      'MCP_PLAN_LLM_INPUT',
      'MCP_PLAN_LLM_OUTPUT',
      'MCP_TOOL_CALL',
      'MCP_TOOL_RESULT',
      'MCP_FINAL_ANSWER',
    ]) {
      expect(stages).not.toContain(stage);
    }
    expect(stages).toContain('MCP_NO_TOOLS_AVAILABLE');
    expect(h.llm.requests.map((r) => r.kind)).toEqual(['DA']);
    expect(h.llm.unconsumed()).toEqual([]);
  });
});
