import type { JsonObject } from '../../core/json';
import { DEFAULT_RESERVED_TEXTS } from '../../core/response/reserved';
import { moveConnectionsPack } from '../../db/seed/packs';
import { seedPack } from '../../db/seed/seed';
import { configRow, ruleRow } from '../support/config-rows';
import { McpHarness } from '../support/mcp-harness';
import { expectInOrder } from '../support/pipeline-harness';
import { answer, callTool } from '../support/order-config';

const ASK = (id: string) => `What is the status of my move for connection ${id}`;
const REGEX_ONLY = configRow('DialogueActStep', 'RESOLUTE_MODE', 'REGEX_ONLY');

describe('MOVE_CONNECTIONS over a ce_mcp_db_tool, two turns (§12.2, §14 #56)', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await McpHarness.start();
    await seedPack(h.db.db, 'move-connections');
    await h.configure({ ...moveConnectionsPack.rows, configs: [REGEX_ONLY] });
  });
  afterAll(async () => h.stop());
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  it('answers each turn from its own observation (stale-answer guard)', async () => {
    h.llm.setScript([
      callTool('postgres.move_status', { connection_id: 'USPSC003BA100SA277CON1388' }),
      answer('The status of your move for connection USPSC003BA100SA277CON1388 is MOVED.'),
    ]);
    const first = await h.turn({ message: ASK('USPSC003BA100SA277CON1388') });
    expect(first).toMatchObject({
      intent: 'MOVE_CONNECTIONS',
      state: 'COMPLETED',
      payload: { value: 'The status of your move for connection USPSC003BA100SA277CON1388 is MOVED.' },
    });
    expectInOrder(await h.stages(first.conversationId), [
      'RULE_NO_MATCH (McpToolStep PreMcp)',
      'MCP_CONTEXT_CLEARED',
      'MCP_PLAN_LLM_INPUT',
      'MCP_PLAN_LLM_OUTPUT',
      'MCP_TOOL_CALL',
      'MCP_DB_PREFLIGHT',
      'MCP_DB_SQL_EXECUTION',
      'MCP_TOOL_RESULT',
      'MCP_PLAN_LLM_INPUT',
      'MCP_PLAN_LLM_OUTPUT',
      'MCP_FINAL_ANSWER',
      'RULE_MATCH (McpToolStep)',
      'SET_STATE',
      'RULE_APPLIED (McpToolStep)',
      'RESOLVE_RESPONSE',
      'RESPONSE_EXACT',
    ]);
    expect(await h.payload(first.conversationId, 'MCP_DB_SQL_EXECUTION')).toMatchObject({
      tool_code: 'postgres.move_status',
      params: { connection_id: 'USPSC003BA100SA277CON1388', limit: 200 },
      row_count: 1,
    });

    h.llm.setScript([
      callTool('postgres.move_status', { connection_id: 'USPSC003BA100SA277CON1128' }),
      answer('The status of your move for connection USPSC003BA100SA277CON1128 is IN_PROGRESS.'),
    ]);
    const second = await h.turn({ conversationId: first.conversationId, message: ASK('USPSC003BA100SA277CON1128') });
    expect(second.payload.value).toBe(
      'The status of your move for connection USPSC003BA100SA277CON1128 is IN_PROGRESS.'
    );
    const observations = (second.context['mcp'] as JsonObject)['observations'] as JsonObject[];
    expect(observations).toEqual([
      {
        toolCode: 'postgres.move_status',
        args: { connection_id: 'USPSC003BA100SA277CON1128' },
        status: 'SUCCESS',
        result: { rows: [{ status: 'IN_PROGRESS' }], rowCount: 1, truncated: false },
      },
    ]);
    const turn2 = await h.stages(first.conversationId, 2);
    expect(turn2.indexOf('MCP_CONTEXT_CLEARED')).toBeLessThan(turn2.indexOf('MCP_PLAN_LLM_INPUT'));
    const firstPlanOfTurn2 = h.llm.requestsOf('PLAN')[2];
    expect(firstPlanOfTurn2?.userText).not.toContain('MOVED');
  });

  describe('a follow-up the classifiers do not route (seed "stale move ID bug")', () => {
    const MOVED = 'The status of your move for connection USPSC003BA100SA277CON1388 is MOVED.';
    /** What the intent agent does for a follow-up, as its prompt says: same intent, keep the current state. */
    const keepCompleted = {
      kind: 'INTENT',
      reply: { intent: 'MOVE_CONNECTIONS', state: 'COMPLETED', confidence: 0.9 },
    };

    async function answeredThen(message: string) {
      h.llm.setScript([
        callTool('postgres.move_status', { connection_id: 'USPSC003BA100SA277CON1388' }),
        answer(MOVED),
      ]);
      const first = await h.turn({ message: ASK('USPSC003BA100SA277CON1388') });
      expect(first.payload.value).toBe(MOVED);
      h.llm.setScript([keepCompleted]);
      const next = await h.turn({ conversationId: first.conversationId, message });
      return { next, stages: await h.stages(first.conversationId, 2) };
    }

    /** Neither names a connection nor only acknowledges the answer (that is answered by rule 21's state). */
    const FOLLOW_UP = 'and what about the other one?';

    afterEach(async () => h.configure({ ...moveConnectionsPack.rows, configs: [REGEX_ONLY] }));

    it('answers with its own reply, not the last answer: the pack asks which connection', async () => {
      const { next, stages } = await answeredThen(FOLLOW_UP);
      expect(next).toMatchObject({
        state: 'COMPLETED',
        payload: { value: expect.stringMatching(/^Which connection/) },
      });
      expectInOrder(stages, ['MCP_CONTEXT_CLEARED', 'MCP_NO_TOOLS_AVAILABLE', 'RESPONSE_EXACT']);
      expect(next.context['mcp']).toEqual({ lifecycle: expect.objectContaining({ status: 'NO_TOOLS_FOR_SCOPE' }) });
    });

    it('a PRE_AGENT_MCP SHORT_CIRCUIT with no text of its own answers with nothing of the last turn', async () => {
      const repeat = ruleRow({
        ruleId: 29,
        phase: 'PRE_AGENT_MCP',
        intentCode: 'MOVE_CONNECTIONS',
        stateCode: 'COMPLETED',
        ruleType: 'REGEX',
        matchPattern: '(?i)other one',
        action: 'SHORT_CIRCUIT',
        description: 'Answer with the planner answer, if any.',
      });
      const rows = moveConnectionsPack.rows;
      await h.configure({ ...rows, configs: [REGEX_ONLY], rules: [...(rows.rules ?? []), repeat] });
      const { next, stages } = await answeredThen(FOLLOW_UP);
      expect(next.payload.value).not.toBe(MOVED);
      expect(next.payload.value).toMatch(/^Which connection/);
      expectInOrder(stages, ['SHORT_CIRCUIT', 'MCP_CONTEXT_CLEARED', 'MCP_NO_TOOLS_AVAILABLE', 'RESPONSE_EXACT']);
      const audits = await h.audits(next.conversationId, 2);
      expect(audits.find((a) => a.stage === 'SHORT_CIRCUIT')?.payload).toMatchObject({
        answered: false,
        reason: 'EARLIER_TURN_ANSWER',
      });
    });

    it("on a database seeded before classifier 21 (the outsider's repro), the reply is the TURN_FAILED text, never the last answer", async () => {
      const rows = moveConnectionsPack.rows;
      await h.configure({
        ...rows,
        configs: [REGEX_ONLY],
        classifiers: rows.classifiers?.filter((c) => c.classifierId !== 21),
        responses: rows.responses?.map((r) =>
          r.responseId === 20 ? { ...r, exactText: '[[${context.mcp.finalAnswer}]]' } : r
        ),
      });
      const { next, stages } = await answeredThen('And connection USPSC003BA100SA277CON1128?');
      expect(next.payload.value).not.toBe(MOVED);
      expect(next.payload.value).toBe(DEFAULT_RESERVED_TEXTS.TURN_FAILED);
      expectInOrder(stages, [
        'MCP_CONTEXT_CLEARED',
        'MCP_NO_TOOLS_AVAILABLE',
        'EXACT_RESPONSE_RENDERING',
        'RESPONSE_EXACT',
      ]);
      const audits = await h.audits(next.conversationId, 2);
      expect(audits.find((a) => a.stage === 'MCP_CONTEXT_CLEARED')?.payload).toMatchObject({
        reason: 'PLANNER_SKIPPED',
        skipReason: 'NO_TOOLS_FOR_SCOPE',
      });
      expect(audits.find((a) => a.stage === 'EXACT_RESPONSE_RENDERING')?.payload).toMatchObject({
        fallbackUsed: true,
        fallback: 'TURN_FAILED_TEXT',
        reason: 'RENDERED_BLANK',
      });
    });
  });

  it('refuses args that do not match param_schema: the planner is told why, no SQL runs (issue #21)', async () => {
    h.llm.setScript([
      callTool('postgres.move_status', { connection_id: 42 }),
      answer('I could not look that connection up.'),
    ]);
    const result = await h.turn({ message: ASK('USPSC003BA100SA277CON1388') });
    expect(result.payload.value).toBe('I could not look that connection up.');
    const observations = (result.context['mcp'] as JsonObject)['observations'] as JsonObject[];
    expect(observations).toEqual([
      expect.objectContaining({ toolCode: 'postgres.move_status', status: 'ARGS_REJECTED' }),
    ]);
    expect(await h.payload(result.conversationId, 'TOOL_ARGS_REJECTED')).toMatchObject({
      tool_code: 'postgres.move_status',
      problems: ['args.connection_id must be string'],
    });
    const stages = await h.stages(result.conversationId);
    expect(stages).not.toContain('MCP_DB_PREFLIGHT');
    expect(stages).not.toContain('MCP_DB_SQL_EXECUTION');
    expect(stages).not.toContain('MCP_TOOL_CALL');
    // The second plan sees the rejection and the schema the tool takes.
    const replan = h.llm.requestsOf('PLAN').at(-1)?.userText ?? '';
    expect(replan).toContain('were rejected and the tool was not run');
    expect(replan).toContain('args.connection_id must be string');
  });
});
