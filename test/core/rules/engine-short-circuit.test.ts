import type { JsonObject } from '../../../core/json';
import type { RulePhase } from '../../../core/rules/phase';
import { runRulePhase } from '../../../core/rules';
import { ruleRow, sessionFor, snapshotOf } from '../../support/config-rows';
import { stages } from './rule-audits';

describe('runRulePhase: SHORT_CIRCUIT (D5, scenario 20 adapted)', () => {
  const rules = (value: string | null) => [
    ruleRow({ ruleId: 51, action: 'SHORT_CIRCUIT', actionValue: value }),
    ruleRow({ ruleId: 52, action: 'SET_STATE', actionValue: 'NEVER' }),
  ];

  it('answers with the rendered action value and ends evaluation', async () => {
    const out = await runRulePhase({
      session: sessionFor('x', { intent: 'A', state: 'S', context: { who: 'Ann' } }),
      snapshot: snapshotOf({ rules: rules('Hello {{context.who}} in {{state}}') }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });
    expect(out.stop).toEqual({ reason: 'SHORT_CIRCUIT', payload: { type: 'TEXT', value: 'Hello Ann in S' } });
    expect(stages(out.audits)).toEqual(['RULE_MATCH (RulesStep)', 'SHORT_CIRCUIT', 'RULE_APPLIED (RulesStep)']);
    expect(out.session.state).toBe('S');
  });

  it('falls back to context.mcp.finalAnswer, and continues when there is nothing to answer', async () => {
    const withAnswer = await runRulePhase({
      session: sessionFor('x', { context: { mcp: { finalAnswer: 'MOVED' } } }),
      snapshot: snapshotOf({ rules: rules(null) }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });
    expect(withAnswer.stop?.payload).toEqual({ type: 'TEXT', value: 'MOVED' });

    const without = await runRulePhase({
      session: sessionFor('x'),
      snapshot: snapshotOf({ rules: rules('') }),
      phase: 'PRE_RESPONSE_RESOLUTION',
      source: 'RulesStep',
    });
    expect(without.stop).toBeUndefined();
    expect(without.session.state).toBe('NEVER');
    expect(without.audits.find((a) => a.stage === 'SHORT_CIRCUIT')?.payload['answered']).toBe(false);
  });

  // Seed "stale move ID bug": a rule before this turn's planner sees the last turn's output (and matches on it, as in
  // Java), but ends the turn before McpPrepare clears it; its answer never says it.
  describe("before this turn's planner or direct tool: never an earlier turn's output", () => {
    const lastTurn = {
      mcp: {
        finalAnswer: 'The status of your move for connection CON1388 is MOVED.',
        observations: [{ toolCode: 'postgres.move_status', args: {}, status: 'SUCCESS', result: { rowCount: 1 } }],
        toolExecution: { status: 'SUCCESS', result: { mapped: { orderId: 'ORD-7017', status: 'SUBMITTED' } } },
      },
    };
    const phaseRun = (phase: RulePhase, value: string | null) =>
      runRulePhase({
        session: sessionFor('and CON1128?', { intent: 'A', state: 'S', context: structuredClone(lastTurn) }),
        snapshot: snapshotOf({ rules: rules(value).map((r) => ({ ...r, phase, dbPhase: phase })) }),
        phase,
        source: 'McpToolStep PreMcp',
      });

    it.each(['PRE_AGENT_MCP', 'POST_TOOL_EXECUTION', 'POST_CLASSIFIER_INTENT'] as const)(
      'an empty value does not answer with the last answer (%s): the turn goes on, audited EARLIER_TURN_ANSWER',
      async (phase) => {
        const out = await phaseRun(phase, null);
        expect(out.stop).toBeUndefined();
        expect(out.session.state).toBe('NEVER');
        expect(out.audits.find((a) => a.stage === 'SHORT_CIRCUIT')?.payload).toEqual({
          ruleId: 51,
          answered: false,
          source: 'MCP_FINAL_ANSWER',
          reason: 'EARLIER_TURN_ANSWER',
        });
        // Rules still see it, and the session is not changed by the answer's view of it.
        expect((out.session.context['mcp'] as JsonObject)['finalAnswer']).toBe(lastTurn.mcp.finalAnswer);
      }
    );

    it.each([
      ['PRE_AGENT_MCP', 'Last time: {{context.mcp.finalAnswer}}'],
      ['PRE_AGENT_MCP', 'Rows: {{context.mcp.observations[0].result.rowCount}}'],
      ['POST_SCHEMA_EXTRACTION', 'Order {{context.mcp.toolExecution.result.mapped.orderId}} is SUBMITTED.'],
    ] as const)('a value reading it fails the turn instead of repeating it (%s: %s)', async (phase, value) => {
      await expect(phaseRun(phase, value)).rejects.toMatchObject({ type: 'UNRESOLVED_PROMPT_VARIABLE' });
    });

    it("answers with this turn's output: the direct tool's from POST_TOOL_EXECUTION, the planner's after it", async () => {
      const tool = await phaseRun('POST_TOOL_EXECUTION', 'Order {{context.mcp.toolExecution.result.mapped.orderId}}.');
      expect(tool.stop?.payload).toEqual({ type: 'TEXT', value: 'Order ORD-7017.' });
      const planner = await phaseRun('POST_AGENT_MCP', null);
      expect(planner.stop?.payload).toEqual({ type: 'TEXT', value: lastTurn.mcp.finalAnswer });
    });
  });
});
