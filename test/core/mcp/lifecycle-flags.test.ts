import {
  finalAnswerDetermined,
  markAbruptedIfUnanswered,
  writeFinalAnswer,
  writeLoopFlags,
} from '../../../core/mcp/context';
import { readMcpState } from '../../../core/mcp/state';
import { buildFacts } from '../../../core/rules/facts';
import { evaluateJsonPathRule } from '../../../core/rules/jsonpath';
import { sessionFor } from '../../support/config-rows';

/** D18: the loop flags at `context.mcp.*` (Java engine) and `context.mcp.lifecycle.*` (seed guide). */
describe('MCP lifecycle flags on both paths (D18, issue #14 item 1)', () => {
  const facts = (session: ReturnType<typeof sessionFor>) => buildFacts(session, {});

  it('a rule on either path matches a final answer', () => {
    const session = sessionFor('x', { intent: 'I', state: 'S' });
    writeLoopFlags(session, false, false, 5);
    writeFinalAnswer(session, 'done');
    for (const rule of [
      '$[?(@.context.mcp.finalAnswerDetermined == true)]',
      '$[?(@.context.mcp.lifecycle.finalAnswerDetermined == true)]',
      '$[?(@.context.mcp.lifecycle.toolExecutionAbrupted == false && @.context.mcp.lifecycle.toolExecutionAbruptionLimit == 5)]',
    ]) {
      expect([rule, evaluateJsonPathRule(rule, facts(session))]).toEqual([rule, true]);
    }
    expect(finalAnswerDetermined(session)).toBe(true);
  });

  it('a rule on either path matches the loop limit, and the typed state reads it', () => {
    const session = sessionFor('x', { intent: 'I', state: 'S' });
    writeLoopFlags(session, false, false, 3);
    session.inputParams['mcp_action'] = 'CALL_TOOL';
    expect(markAbruptedIfUnanswered(session)).toBe(true);
    for (const rule of [
      '$[?(@.context.mcp.toolExecutionAbrupted == true)]',
      '$[?(@.context.mcp.lifecycle.toolExecutionAbrupted == true)]',
    ]) {
      expect([rule, evaluateJsonPathRule(rule, facts(session))]).toEqual([rule, true]);
    }
    expect(readMcpState(session)).toMatchObject({
      toolExecutionAbrupted: true,
      toolExecutionAbruptionLimit: 3,
      lifecycle: { toolExecutionAbrupted: true, toolExecutionAbruptionLimit: 3, finalAnswerDetermined: false },
    });
  });

  it('reads hostile context.mcp values as absent', () => {
    const session = sessionFor('x', {
      context: { mcp: { finalAnswerDetermined: 'yes', observations: [1, { toolCode: 7 }], lifecycle: [] } },
    });
    const state = readMcpState(session);
    expect(state.finalAnswerDetermined).toBeUndefined();
    expect(state.lifecycle).toBeNull();
    expect(state.observations).toEqual([{ toolCode: '', args: {}, status: 'SUCCESS', result: null }]);
  });
});
