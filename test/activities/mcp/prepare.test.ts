import { systemClock, type ActivityDeps } from '../../../activities/deps';
import { mcpPrepare } from '../../../activities/mcp/prepare';
import type { StepContext } from '../../../activities/step-runtime';
import type { JsonObject } from '../../../core/json';
import type { Session } from '../../../core/session';
import { StepScope } from '../../../core/step/scope';
import { createTaskRegistry } from '../../../core/tasks/registry';
import { mcpTool } from '../../../db/seed/builders';
import { ruleRow, sessionFor, snapshotOf, turnInput } from '../../support/config-rows';

/**
 * McpPrepare's stale-answer guard (seed "stale move ID bug": "Second request returns previous move result";
 * §6.1 step 3, §14 #40/#56): an earlier turn's planner output never outlives the MCP step of a later turn,
 * whether that turn's planner runs or is skipped; a skipped turn with nothing stale clears and audits nothing.
 */
const deps = { clock: systemClock, tasks: createTaskRegistry() } as unknown as ActivityDeps;
const TOOL = mcpTool({
  toolId: 1,
  toolCode: 'postgres.move_status',
  toolGroup: 'DB',
  intentCode: 'MOVE_CONNECTIONS',
  stateCode: 'MOVE_STATUS',
  description: 'status',
});

/** What a finished planner turn leaves in the session: the state after it, its answer, observation and params. */
function afterPlannerTurn(message: string, state: string, params: JsonObject = {}): Session {
  return sessionFor(message, {
    intent: 'MOVE_CONNECTIONS',
    state,
    context: {
      mcp: {
        finalAnswer: 'The status of your move for connection CON1388 is MOVED.',
        finalAnswerDetermined: true,
        toolExecutionAbrupted: false,
        toolExecutionAbruptionLimit: 5,
        observations: [{ toolCode: 'postgres.move_status', args: {}, status: 'SUCCESS', result: { rows: [] } }],
        lifecycle: { phase: 'POST_AGENT_MCP', status: 'ANSWER', outcome: 'ANSWERED', finished: true },
        toolExecution: { phase: 'POST_TOOL_EXECUTION', status: 'SUCCESS' },
      },
    },
    inputParams: {
      mcp_action: 'ANSWER',
      mcp_status: 'ANSWER',
      mcp_final_answer: 'The status of your move for connection CON1388 is MOVED.',
      ...params,
    },
  });
}

async function prepare(session: Session, rules = snapshotOf({}).rows.rules) {
  const ctx: StepContext = {
    input: { turn: turnInput(session.userText), session, callKey: 'c' },
    snapshot: snapshotOf({ mcpTools: [TOOL], rules }),
    deps,
    scope: new StepScope(session),
  };
  const out = await mcpPrepare(ctx);
  const stages = out.audits.map((a) => a.stage).filter((s) => !s.startsWith('RULE_'));
  const mcp = out.session.context['mcp'] as JsonObject;
  return { out, stages, mcp, cleared: out.audits.find((a) => a.stage === 'MCP_CONTEXT_CLEARED')?.payload };
}

describe('McpPrepare: an earlier turn never answers this one', () => {
  it('clears the last answer before the skip checks when the planner is then skipped (no tools in COMPLETED)', async () => {
    const { out, stages, mcp, cleared } = await prepare(afterPlannerTurn('And connection CON1128?', 'COMPLETED'));
    expect(out.plan).toMatchObject({ run: false, skipReason: 'NO_TOOLS_FOR_SCOPE' });
    expect(stages).toEqual(['MCP_CONTEXT_CLEARED', 'MCP_NO_TOOLS_AVAILABLE']);
    expect(cleared).toEqual({
      reason: 'PLANNER_SKIPPED',
      skipReason: 'NO_TOOLS_FOR_SCOPE',
      cleared: [
        'finalAnswer',
        'finalAnswerDetermined',
        'toolExecutionAbrupted',
        'toolExecutionAbruptionLimit',
        'observations',
        'mcp_action',
        'mcp_final_answer',
      ],
    });
    // Only this turn's skip lifecycle is left, and the direct tool path's record (§6.1 step 3 ⚠).
    expect(mcp).toEqual({
      lifecycle: expect.objectContaining({ status: 'NO_TOOLS_FOR_SCOPE', outcome: 'NO_TOOLS' }),
      toolExecution: { phase: 'POST_TOOL_EXECUTION', status: 'SUCCESS' },
    });
    const mcpParams = Object.keys(out.session.inputParams).filter((k) => k.startsWith('mcp_'));
    expect(mcpParams).toEqual(['mcp_status']);
    expect(out.session.inputParams['mcp_status']).toBe('NO_TOOLS_FOR_SCOPE');
  });

  it.each([
    ['a dialogue act (EDIT)', 'change it', { dialogue_act: 'EDIT' }, 'SKIPPED_DIALOGUE_ACT'],
    ['a greeting', 'hello again', {}, 'SKIPPED_GREETING'],
    ['a guardrail denial', 'x', { skip_tool_execution: true }, 'SKIPPED_BY_GUARDRAIL'],
  ])('clears it for every skip: %s', async (_label, message, params, skipReason) => {
    const { stages, mcp, cleared } = await prepare(afterPlannerTurn(message, 'MOVE_STATUS', params));
    expect(stages[0]).toBe('MCP_CONTEXT_CLEARED');
    expect(cleared).toMatchObject({ reason: 'PLANNER_SKIPPED', skipReason });
    expect(mcp['finalAnswer']).toBeUndefined();
    expect(mcp['observations']).toBeUndefined();
    expect(mcp['lifecycle']).toMatchObject({ status: skipReason });
  });

  it('sees the planner output of earlier turns: PRE_AGENT_MCP rules run on it first', async () => {
    const rule = ruleRow({
      phase: 'PRE_AGENT_MCP',
      intentCode: 'MOVE_CONNECTIONS',
      stateCode: 'COMPLETED',
      ruleType: 'JSON_PATH',
      matchPattern: "$[?(@.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]",
      action: 'SET_STATE',
      actionValue: 'MOVE_STATUS',
    });
    const { out, stages } = await prepare(afterPlannerTurn('And connection CON1128?', 'COMPLETED'), [rule]);
    expect(out.session.state).toBe('MOVE_STATUS');
    expect(out.plan.run).toBe(true);
    expect(stages).toEqual(['SET_STATE', 'MCP_CONTEXT_CLEARED']);
  });

  describe('a SHORT_CIRCUIT rule of PRE_AGENT_MCP, which ends the turn before the skip checks', () => {
    const shortCircuit = (actionValue: string | null) =>
      ruleRow({
        phase: 'PRE_AGENT_MCP',
        intentCode: 'MOVE_CONNECTIONS',
        stateCode: 'COMPLETED',
        action: 'SHORT_CIRCUIT',
        actionValue,
      });

    it('answers with its own text and clears the last answer before the turn is committed', async () => {
      const { out, stages, mcp, cleared } = await prepare(afterPlannerTurn('And CON1128?', 'COMPLETED'), [
        shortCircuit('Ask me about one connection at a time.'),
      ]);
      expect(out.stop?.payload).toEqual({ type: 'TEXT', value: 'Ask me about one connection at a time.' });
      expect(out.plan).toMatchObject({ run: false, skipReason: 'SHORT_CIRCUIT' });
      expect(stages).toEqual(['SHORT_CIRCUIT', 'MCP_CONTEXT_CLEARED']);
      expect(cleared).toEqual({ reason: 'SHORT_CIRCUIT', cleared: expect.arrayContaining(['finalAnswer']) });
      expect(mcp['finalAnswer']).toBeUndefined();
      expect(out.session.inputParams['mcp_final_answer']).toBeUndefined();
    });

    it("never answers with the last turn's answer (an empty value): the turn goes on to the skip checks", async () => {
      const { out, stages, cleared } = await prepare(afterPlannerTurn('And CON1128?', 'COMPLETED'), [
        shortCircuit(null),
      ]);
      expect(out.stop).toBeUndefined();
      expect(out.audits.find((a) => a.stage === 'SHORT_CIRCUIT')?.payload).toMatchObject({
        answered: false,
        reason: 'EARLIER_TURN_ANSWER',
      });
      expect(stages).toEqual(['SHORT_CIRCUIT', 'MCP_CONTEXT_CLEARED', 'MCP_NO_TOOLS_AVAILABLE']);
      expect(cleared).toMatchObject({ reason: 'PLANNER_SKIPPED', skipReason: 'NO_TOOLS_FOR_SCOPE' });
    });
  });

  it("keeps today's single MCP_CONTEXT_CLEARED {} when the planner runs (§12.2 turn 2)", async () => {
    const { out, stages, mcp, cleared } = await prepare(afterPlannerTurn('And connection CON1128?', 'MOVE_STATUS'));
    expect(out.plan).toMatchObject({ run: true, skipReason: null, maxLoops: 5 });
    expect(stages).toEqual(['MCP_CONTEXT_CLEARED']);
    expect(cleared).toEqual({});
    expect(mcp['finalAnswer']).toBeUndefined();
    expect(mcp['observations']).toBeUndefined();
    expect(out.session.inputParams['mcp_final_answer']).toBeUndefined();
  });

  it('clears and audits nothing when no earlier planner ran (FAQ after a greeting, §12.1, §14 #40)', async () => {
    const session = sessionFor('Can I move my connections within zapper?', {
      intent: 'FAQ',
      state: 'IDLE',
      context: { mcp: { lifecycle: { phase: 'POST_AGENT_MCP', status: 'SKIPPED_GREETING', outcome: 'SKIPPED' } } },
      inputParams: { mcp_status: 'SKIPPED_GREETING' },
    });
    const { stages, mcp } = await prepare(session);
    expect(stages).toEqual(['MCP_NO_TOOLS_AVAILABLE']);
    expect(mcp['lifecycle']).toMatchObject({ status: 'NO_TOOLS_FOR_SCOPE' });
  });

  describe('an open semantic clarification (§6.1 step 2, §7.4)', () => {
    const question = 'Which date do you mean?';
    const clarifying = (message: string, params: JsonObject): Session => {
      const session = afterPlannerTurn(message, 'MOVE_STATUS', params);
      const pending = { question, reason: 'SEMANTIC_QUERY_AMBIGUITY' };
      session.pendingClarification = { ...pending };
      session.context['pending_clarification'] = pending;
      const mcp = session.context['mcp'] as JsonObject;
      mcp['finalAnswer'] = question;
      mcp['semantic'] = { clarification: { required: true, signal: 'CLARIFICATION_REQUIRED', question } };
      return session;
    };

    it('is kept whole by a skipped turn, so the next reply resumes it', async () => {
      const { out, stages, mcp } = await prepare(clarifying('no', { dialogue_act: 'NEGATE' }));
      expect(out.plan.skipReason).toBe('SKIPPED_DIALOGUE_ACT');
      expect(stages).not.toContain('MCP_CONTEXT_CLEARED');
      expect(out.session.pendingClarification).toMatchObject({ question });
      expect(mcp['semantic']).toMatchObject({ clarification: { required: true } });
      expect(mcp['finalAnswer']).toBe(question);

      const resumed = await prepare(cloneForNextTurn(out.session, 'the 12th of March', 'ANSWER'));
      expect(resumed.out.plan.run).toBe(true);
      expect(resumed.stages).toEqual(['MCP_CONTEXT_CLEARED']);
      expect(resumed.out.session.pendingClarification).toBeNull();
      expect(resumed.mcp['semantic']).toMatchObject({ clarification: { resolved: true, required: false } });
    });
  });
});

function cloneForNextTurn(session: Session, message: string, act: string): Session {
  const next = structuredClone(session);
  next.userText = message;
  next.inputParams['dialogue_act'] = act;
  return next;
}
