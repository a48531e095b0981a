import { checkMcpSkips, enrichSemanticArgs } from '../../../core/mcp';
import type { JsonObject } from '../../../core/json';
import type { Session } from '../../../core/session';
import { stepInput } from './fake-executor';

function session(extra: Partial<Session> = {}, params: JsonObject = {}): Session {
  const s = stepInput(extra).session;
  s.inputParams = { ...params };
  return s;
}

function lifecycleStatus(s: Session): unknown {
  return ((s.context['mcp'] as JsonObject | undefined)?.['lifecycle'] as JsonObject | undefined)?.['status'];
}

describe('MCP skip checks (§6.1 step 2, scenarios 40–41)', () => {
  it('skips on a guardrail denial first', () => {
    const s = session({ userText: 'hi' }, { skip_tool_execution: true });
    expect(checkMcpSkips(s, 2).skipReason).toBe('SKIPPED_BY_GUARDRAIL');
    expect(lifecycleStatus(s)).toBe('SKIPPED_BY_GUARDRAIL');
  });

  it('skips an incomplete schema before the greeting check, with an audit', () => {
    const s = session({
      userText: 'hi',
      resolvedSchema: { schemaId: 1, intentCode: 'X', stateCode: 'Y' },
      schemaComplete: false,
      missingRequiredFields: ['customerId'],
    });
    const out = checkMcpSkips(s, 2);
    expect(out.skipReason).toBe('SKIPPED_SCHEMA_INCOMPLETE');
    expect(out.audits[0]).toMatchObject({
      stage: 'MCP_SKIPPED_SCHEMA_INCOMPLETE',
      payload: { missing_fields: ['customerId'], schema_complete: false },
    });
    expect((s.context['mcp'] as JsonObject)['lifecycle']).toMatchObject({
      outcome: 'SKIPPED',
      finished: true,
      errorMessage: 'SCHEMA_INCOMPLETE',
    });
  });

  it.each([
    ['NEGATE', {}],
    ['RESET', {}],
    ['EDIT', {}],
    ['AFFIRM', {}],
    ['AFFIRM', { routing_decision: 'CONTINUE_STANDARD_FLOW' }],
  ])('skips dialogue act %s %j', (act, extra) => {
    const s = session({ userText: 'x' }, { dialogue_act: act, ...extra });
    expect(checkMcpSkips(s, 2).skipReason).toBe('SKIPPED_DIALOGUE_ACT');
  });

  it('runs on AFFIRM with PROCEED_CONFIRMED', () => {
    const s = session({ userText: 'go ahead' }, { dialogue_act: 'AFFIRM', routing_decision: 'PROCEED_CONFIRMED' });
    expect(checkMcpSkips(s, 2)).toEqual({ skipReason: null, audits: [], clarificationReply: false });
  });

  it.each(['Hey, what is the status of ORD-1?', 'hello there', 'Good morning team'])(
    'skips a greeting prefix: %s',
    (text) => {
      expect(checkMcpSkips(session({ userText: text }), 2).skipReason).toBe('SKIPPED_GREETING');
    }
  );

  it('does not treat words starting like greetings as greetings', () => {
    expect(checkMcpSkips(session({ userText: 'history of ORD-1' }), 2).skipReason).toBeNull();
  });

  it('skips a pending (non-semantic) clarification with an audit only', () => {
    const s = session({ userText: 'FAQ?', pendingClarification: { question: 'Did you mean…', reason: 'AGENT' } });
    const out = checkMcpSkips(s, 2);
    expect(out.skipReason).toBe('PENDING_CLARIFICATION');
    expect(out.audits.map((a) => a.stage)).toEqual(['MCP_SKIPPED_PENDING_CLARIFICATION']);
    expect(s.context['mcp']).toBeUndefined();
  });

  it('reports no tools for the scope', () => {
    const out = checkMcpSkips(session({ userText: 'What is X?', intent: 'FAQ', state: 'IDLE' }), 0);
    expect(out.skipReason).toBe('NO_TOOLS_FOR_SCOPE');
    expect(out.audits[0]).toEqual({ stage: 'MCP_NO_TOOLS_AVAILABLE', payload: { intent: 'FAQ', state: 'IDLE' } });
  });

  it('resumes the semantic chain when the user answers a semantic clarification', () => {
    const s = session(
      { userText: 'FAILED', pendingClarification: { question: 'Which status?', reason: 'SEMANTIC_QUERY_AMBIGUITY' } },
      { dialogue_act: 'EDIT' }
    );
    s.context['pending_clarification'] = { question: 'Which status?', reason: 'SEMANTIC_QUERY_AMBIGUITY' };
    const out = checkMcpSkips(s, 3);
    expect(out).toEqual({ skipReason: null, audits: [], clarificationReply: true });
    expect(s.pendingClarification).toBeNull();
    expect(s.context['pending_clarification']).toBeUndefined();
    expect(s.inputParams['dialogue_act']).toBe('ANSWER');
    expect((s.context['mcp'] as JsonObject)['semantic']).toMatchObject({
      clarification: { resolved: true, signal: 'NONE' },
    });
  });
});

describe('semantic clarification cleared earlier in the turn', () => {
  it('still resumes when the previous turn left a semantic clarification in context', () => {
    const s = session({ userText: '/sql2 FAILED', pendingClarification: null }, { dialogue_act: 'ANSWER' });
    s.context['pending_clarification'] = { question: 'Which?', reason: 'SEMANTIC_QUERY_AMBIGUITY' };
    s.context['mcp'] = { semantic: { clarification: { required: true, signal: 'CLARIFICATION_REQUIRED' } } };
    expect(checkMcpSkips(s, 3).clarificationReply).toBe(true);
    expect(s.context['pending_clarification']).toBeUndefined();
  });

  it('does not resume for a non-semantic persisted clarification', () => {
    const s = session({ userText: 'yes please', pendingClarification: null }, { dialogue_act: 'ANSWER' });
    s.context['pending_clarification'] = { question: 'Did you mean…', reason: 'AGENT' };
    s.context['mcp'] = { semantic: { clarification: { required: true, signal: 'CLARIFICATION_REQUIRED' } } };
    expect(checkMcpSkips(s, 3).clarificationReply).toBe(false);
  });
});

describe('semantic argument injection (§7.4)', () => {
  const interpret = {
    toolCode: 'db.semantic.interpret',
    args: {},
    status: 'SUCCESS',
    result: { canonicalIntent: { intent: 'LIST' } },
  };
  const query = {
    toolCode: 'db.semantic.query',
    args: {},
    status: 'SUCCESS',
    result: { compiledSql: { sql: 'select 1', params: { a: 1 } } },
  };
  it('injects the canonical intent and the compiled SQL, keeping args the planner gave', () => {
    expect(enrichSemanticArgs('db.semantic.query', {}, [interpret])).toEqual({ canonicalIntent: { intent: 'LIST' } });
    expect(enrichSemanticArgs('db.semantic.query', { canonicalIntent: { intent: 'MINE' } }, [interpret])).toEqual({
      canonicalIntent: { intent: 'MINE' },
    });
    expect(enrichSemanticArgs('postgres.query', {}, [interpret, query])).toEqual({
      query: 'select 1',
      params: { a: 1 },
    });
    expect(enrichSemanticArgs('postgres.query', { sql: 'select 2' }, [query])).toEqual({ sql: 'select 2' });
    expect(enrichSemanticArgs('other.tool', { x: 1 }, [interpret, query])).toEqual({ x: 1 });
  });
});
