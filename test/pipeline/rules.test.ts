import { randomUUID } from 'node:crypto';
import { baseConfig } from '../support/base-config';
import { intentRow, responseRow, ruleRow, templateRow } from '../support/config-rows';
import { expectInOrder, PipelineHarness } from '../support/pipeline-harness';

const REJECTED_AGENT = { intent: null, confidence: 0 };
const tasksCalled: string[] = [];

describe('rules engine in the pipeline (reference §14 scenarios 16–20)', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start({
      tasks: {
        auditTask: {
          m1: ({ session }) => {
            tasksCalled.push('m1');
            session.inputParams['task_m1'] = true;
            return 'ok';
          },
          m2: () => {
            tasksCalled.push('m2');
            return 'ok';
          },
        },
      },
    });
  });
  afterAll(async () => h.stop());
  beforeEach(() => {
    h.llm.setScript([{ kind: 'INTENT', reply: REJECTED_AGENT, persistent: true }]);
    h.llm.clearRequests();
    tasksCalled.length = 0;
  });

  const seeded = async (intentCode: string, stateCode: string, contextJson = {}) => {
    const id = randomUUID();
    await h.seedConversation(id, { intentCode, stateCode, contextJson });
    return id;
  };
  const appliedRuleIds = async (id: string, source: string) =>
    (await h.audits(id)).filter((a) => a.stage === `RULE_APPLIED (${source})`).map((a) => a.payload['ruleId']);

  it('16 (D3) rows stored with legacy phase names fire in their normalized phase', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('MOVE_CONNECTIONS', 20)],
        rules: [
          ruleRow({
            ruleId: 161,
            dbPhase: 'AGENT_POST_INTENT',
            intentCode: 'MOVE_CONNECTIONS',
            stateCode: 'IDLE',
            action: 'SET_STATE',
            actionValue: 'MOVE_STATUS',
          }),
          ruleRow({
            ruleId: 162,
            dbPhase: 'PIPELINE_RULES',
            intentCode: 'MOVE_CONNECTIONS',
            stateCode: 'MOVE_STATUS',
            action: 'SET_INPUT_PARAM',
            actionValue: 'pipeline_rule:true',
          }),
        ],
        responses: [responseRow({ intentCode: 'MOVE_CONNECTIONS', stateCode: 'MOVE_STATUS', exactText: 'Moving.' })],
      })
    );
    h.llm.setScript([{ kind: 'INTENT', reply: { intent: 'MOVE_CONNECTIONS', state: 'IDLE', confidence: 0.9 } }]);
    const result = await h.turn({ message: 'where is my move' });
    expect(result).toMatchObject({ intent: 'MOVE_CONNECTIONS', state: 'MOVE_STATUS' });
    expect(await appliedRuleIds(result.conversationId, 'AgentIntentResolver')).toEqual([161]);
    expect(await appliedRuleIds(result.conversationId, 'RulesStep')).toEqual([162]);
    const applied = (await h.audits(result.conversationId)).find((a) => a.stage === 'RULE_APPLIED (RulesStep)');
    expect(applied?.payload).toMatchObject({ rulePhase: 'PRE_RESPONSE_RESOLUTION', ruleDbPhase: 'PIPELINE_RULES' });
  });

  it('17 buckets before priority, all matches fire, passes repeat while the state moves', async () => {
    await h.configure(
      baseConfig({
        intents: [intentRow('X', 20)],
        rules: [
          ruleRow({
            ruleId: 1701,
            intentCode: 'X',
            stateCode: 'S1',
            priority: 50,
            action: 'SET_STATE',
            actionValue: 'S2',
          }),
          ruleRow({
            ruleId: 1702,
            intentCode: 'X',
            stateCode: 'S2',
            priority: 1,
            action: 'SET_STATE',
            actionValue: 'S3',
          }),
          ruleRow({
            ruleId: 1703,
            intentCode: 'ANY',
            stateCode: 'ANY',
            priority: 1,
            action: 'SET_INPUT_PARAM',
            actionValue: 'seen:true',
          }),
          ruleRow({
            ruleId: 1704,
            intentCode: 'X',
            stateCode: 'S1',
            priority: 99,
            ruleType: 'EXACT',
            matchPattern: 'ANY',
            action: 'SET_INPUT_PARAM',
            actionValue: 'late:true',
          }),
        ],
        responses: [responseRow({ intentCode: 'X', stateCode: 'S3', exactText: 'At S3.' })],
      })
    );
    const id = await seeded('X', 'S1');
    const result = await h.turn({ conversationId: id, message: 'anything' });
    expect(result).toMatchObject({ state: 'S3', payload: { value: 'At S3.' } });
    expect(await appliedRuleIds(id, 'RulesStep')).toEqual([1701, 1704, 1703, 1702, 1703, 1703]);
    expect((await h.conversation(id))?.inputParams).toMatchObject({ seen: true, late: true });
  });

  it('19 SET_TASK runs every listed task method; GET_SESSION snapshots the session', async () => {
    await h.configure(
      baseConfig({
        rules: [
          ruleRow({
            ruleId: 1901,
            intentCode: 'GREETING',
            stateCode: 'IDLE',
            action: 'SET_TASK',
            actionValue: 'auditTask:m1,m2',
          }),
          ruleRow({
            ruleId: 1902,
            intentCode: 'GREETING',
            stateCode: 'IDLE',
            action: 'GET_SESSION',
            actionValue: 'snap',
          }),
        ],
      })
    );
    const result = await h.turn({ message: 'hello' });
    expect(tasksCalled).toEqual(['m1', 'm2']);
    const params = (await h.conversation(result.conversationId))?.inputParams;
    expect(params).toMatchObject({ task_m1: true, snap: { intent: 'GREETING', state: 'IDLE' } });
    expectInOrder(await h.stages(result.conversationId), [
      'RULE_MATCH (RulesStep)',
      'SET_TASK',
      'RULE_APPLIED (RulesStep)',
      'GET_SESSION',
    ]);
  });

  describe('20 (D5) SHORT_CIRCUIT', () => {
    it('answers with the rendered action value without any response LLM call; the turn is committed', async () => {
      await h.configure(
        baseConfig({
          rules: [
            ruleRow({
              ruleId: 2001,
              intentCode: 'GREETING',
              stateCode: 'IDLE',
              action: 'SHORT_CIRCUIT',
              actionValue: 'Short answer for {{intent}}.',
            }),
          ],
          responses: [],
        })
      );
      const result = await h.turn({ message: 'hello' });
      expect(result).toMatchObject({
        intent: 'GREETING',
        state: 'IDLE',
        payload: { type: 'TEXT', value: 'Short answer for GREETING.' },
        outcome: 'ANSWERED',
      });
      const stages = await h.stages(result.conversationId);
      expectInOrder(stages, [
        'RULE_MATCH (RulesStep)',
        'SHORT_CIRCUIT',
        'RULE_APPLIED (RulesStep)',
        'ENGINE_RETURN',
        'PIPELINE_TIMING',
      ]);
      expect(stages).not.toContain('RESOLVE_RESPONSE');
      expect(stages).not.toContain('MEMORY_UPDATED');
      const rulesExit = (await h.audits(result.conversationId)).find(
        (a) => a.stage === 'STEP_EXIT' && a.payload['step'] === 'Rules'
      );
      expect(rulesExit?.payload['outcome']).toBe('Stop');
      expect(await h.conversation(result.conversationId)).toMatchObject({
        turnCount: 1,
        lastAssistantJson: { type: 'TEXT', value: 'Short answer for GREETING.' },
      });
      expect(h.llm.requests).toHaveLength(0);
    });

    // Seed "stale move ID bug": before this turn's planner, context.mcp.finalAnswer is the last turn's answer. The rule
    // still matches on it, but does not answer with it: the turn goes on and is answered from its own work.
    it("with an empty value never answers an earlier turn's context.mcp.finalAnswer (seed: `$.mcp.finalAnswer` → SHORT_CIRCUIT)", async () => {
      await h.configure(
        baseConfig({
          intents: [intentRow('MOVE_CONNECTIONS', 20)],
          rules: [
            ruleRow({
              ruleId: 2002,
              phase: 'POST_DIALOGUE_ACT',
              intentCode: 'MOVE_CONNECTIONS',
              stateCode: 'ANY',
              ruleType: 'JSON_PATH',
              matchPattern: '$.mcp.finalAnswer',
              action: 'SHORT_CIRCUIT',
            }),
          ],
          promptTemplates: [templateRow({ intentCode: 'MOVE_CONNECTIONS', stateCode: 'ANY', outputFormat: 'TEXT' })],
          responses: [responseRow({ intentCode: 'MOVE_CONNECTIONS', stateCode: 'ANY', responseType: 'DERIVED' })],
        })
      );
      const id = await seeded('MOVE_CONNECTIONS', 'IDLE', {
        mcp: { finalAnswer: 'The status of your move is MOVED.' },
      });
      h.llm.setScript([
        { kind: 'INTENT', reply: { intent: 'MOVE_CONNECTIONS', state: 'IDLE', confidence: 0.9 } },
        { kind: 'RESP_TEXT', reply: 'Which connection should I check?' },
      ]);
      const result = await h.turn({ conversationId: id, message: 'and now?' });
      expect(result.payload).toEqual({ type: 'TEXT', value: 'Which connection should I check?' });
      const shortCircuit = (await h.audits(id)).find((a) => a.stage === 'SHORT_CIRCUIT');
      expect(shortCircuit?.payload).toMatchObject({
        ruleId: 2002,
        source: 'MCP_FINAL_ANSWER',
        answered: false,
        reason: 'EARLIER_TURN_ANSWER',
      });
    });

    it('a rule with an unknown rule_type is refused when config loads (P5), not silently skipped', async () => {
      const error = await h
        .configure(
          baseConfig({ rules: [ruleRow({ ruleId: 2003, ruleType: 'FOO', action: 'SET_STATE', actionValue: 'IDLE' })] })
        )
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ type: 'CONFIG_INVALID' });
      expect(String((error as Error).message)).toMatch(/ce_rule\[2003\].*rule_type "FOO"/);
      await h.configure(baseConfig());
    });
  });

  it('a turn keeps the config version it pinned; an edit applies to the next turn', async () => {
    await h.configure(baseConfig());
    const edited = baseConfig();
    edited.responses = edited.responses?.map((r) =>
      r.intentCode === 'GREETING' ? { ...r, exactText: 'Edited greeting.' } : r
    );
    let editedOnce = false;
    const first = await h.turn(
      { message: 'hello' },
      {
        // The turn's first activity pins the config (a step run that starts with LoadOrCreateConversation).
        around: async (_name, _attempt, call) => {
          const out = await call();
          if (!editedOnce) {
            editedOnce = true;
            await h.configure(edited);
          }
          return out;
        },
      }
    );
    expect(first.payload).toEqual({ type: 'TEXT', value: 'Hi, how can I help you today?' });
    const second = await h.turn({ conversationId: first.conversationId, message: 'hello' });
    expect(second.payload).toEqual({ type: 'TEXT', value: 'Edited greeting.' });
    expect(second.configVersion).not.toBe(first.configVersion);
  });
});
