import type { JsonObject } from '../../core/json';
import { zapperSemanticPack } from '../../db/seed/packs';
import { seedPack } from '../../db/seed/seed';
import { configRow } from '../support/config-rows';
import { McpHarness } from '../support/mcp-harness';
import { expectInOrder } from '../support/pipeline-harness';
import { answer, callTool } from '../support/order-config';

const QUESTION = '/sql2 show all disconnect requests where status went from 810 to 120 on march 12';
const CANONICAL = {
  intent: 'LIST_REQUESTS',
  entity: 'DISCONNECT_REQUEST',
  queryClass: 'TRANSITION_REQUESTS',
  filters: [
    { field: 'fromStatus', op: 'EQ', value: 810 },
    { field: 'toStatus', op: 'EQ', value: 120 },
  ],
  timeRange: { kind: 'ABSOLUTE', from: '2026-03-12T00:00:00Z', to: '2026-03-13T00:00:00Z', timezone: 'UTC' },
  sort: [],
  limit: null,
};
const INTERPRETED = {
  kind: 'SEMANTIC_INTERPRET',
  reply: {
    meta: { confidence: 0.93, needsClarification: false, operationSupported: true },
    canonicalIntent: CANONICAL,
  },
};
const TRANSITION_SQL = [
  'select r.request_id, r.account_id from zp_disco_request r where exists (',
  '  select 1 from zp_disco_request_log l where l.request_id = r.request_id and l.from_status = :from_status',
  '  and l.to_status = :to_status and l.changed_at >= :start_ts and l.changed_at < :next_day_ts)',
  'order by r.request_id',
].join('\n');
const TRANSITION_PARAMS = {
  from_status: 810,
  to_status: 120,
  start_ts: '2026-03-12T00:00:00Z',
  next_day_ts: '2026-03-13T00:00:00Z',
};
const COMPILED = {
  kind: 'SEMANTIC_QUERY',
  reply: { sql: TRANSITION_SQL, params: TRANSITION_PARAMS, unsupported: false, reason: null },
};

function mcpOf(context: JsonObject): JsonObject {
  return context['mcp'] as JsonObject;
}

function semanticOf(context: JsonObject): JsonObject {
  return mcpOf(context)['semantic'] as JsonObject;
}

describe('semantic query chain on the zapper pack (§12.6, §14 #49–52, D6)', () => {
  let h: McpHarness;
  const requestCount = async () =>
    (await h.db.pool.query<{ n: number }>('select count(*)::int as n from business.zp_disco_request')).rows[0]?.n;

  const CLARIFY = 'Which status do you mean: FAILED or REJECTED?';
  /** A first turn whose interpretation needs a clarification: the planner's answer is the question. */
  const askForClarification = () => {
    h.llm.setScript([
      callTool('db.semantic.interpret', { question: '/sql2 show the failed ones' }),
      {
        kind: 'SEMANTIC_INTERPRET',
        reply: {
          meta: { confidence: 0.5, needsClarification: true, clarificationQuestion: CLARIFY },
          canonicalIntent: { intent: 'LIST_REQUESTS' },
        },
      },
      { kind: 'RESP_TEXT', reply: CLARIFY },
    ]);
    return h.turn({ message: '/sql2 show the failed ones' });
  };

  beforeAll(async () => {
    h = await McpHarness.start();
    await seedPack(h.db.db, 'zapper-semantic');
  });
  afterAll(async () => h.stop());
  beforeEach(async () => {
    h.llm.setScript([]);
    h.llm.clearRequests();
    await h.configure({
      ...zapperSemanticPack.rows,
      configs: [configRow('DialogueActStep', 'RESOLUTE_MODE', 'REGEX_ONLY')],
    });
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  it('49 interpret → query → postgres.query → ANSWER, passing the canonical intent and compiled SQL along', async () => {
    h.llm.setScript([
      callTool('db.semantic.interpret', { question: QUESTION }),
      INTERPRETED,
      callTool('db.semantic.query', {}),
      COMPILED,
      callTool('postgres.query', {}),
      answer('Found 7 disconnect requests that went from 810 to 120 on March 12.'),
      { kind: 'RESP_TEXT', reply: '7 requests (ZPR1001–ZPR1007) went from 810 to 120 on March 12.' },
    ]);
    const result = await h.turn({ message: QUESTION });
    expect(result).toMatchObject({
      intent: 'SEMANTIC_QUERY',
      state: 'COMPLETED',
      payload: { value: '7 requests (ZPR1001–ZPR1007) went from 810 to 120 on March 12.' },
    });
    expect(h.llm.requestsOf('SEMANTIC_QUERY')[0]?.userText).toContain('"queryClass":"TRANSITION_REQUESTS"');
    const observations = mcpOf(result.context)['observations'] as JsonObject[];
    expect(observations.map((o) => o['toolCode'])).toEqual([
      'db.semantic.interpret',
      'db.semantic.query',
      'postgres.query',
    ]);
    expect(observations[1]?.['args']).toEqual({ canonicalIntent: CANONICAL });
    expect(observations[2]?.['args']).toEqual({ query: TRANSITION_SQL, params: TRANSITION_PARAMS });
    expect(observations[2]?.['result']).toMatchObject({ status: 'SUCCESS', rowCount: 7 });
    expect(semanticOf(result.context)).toMatchObject({
      tools: { interpret: { completed: true }, query: { completed: true }, postgres: { completed: true, rowCount: 7 } },
      pipeline: { stage: 'UNKNOWN', chain: 'db.semantic.interpret->db.semantic.query->postgres.query' },
    });
    expectInOrder(await h.stages(result.conversationId), [
      'MCP_CONTEXT_CLEARED',
      'MCP_TOOL_CALL',
      'SEMANTIC_INTERPRET_LLM_INPUT',
      'SEMANTIC_INTERPRET_LLM_OUTPUT',
      'SEMANTIC_INTERPRET_OUTPUT',
      'MCP_TOOL_RESULT',
      'RULE_NO_MATCH (McpToolStep PostSemanticInterpret)',
      'MCP_TOOL_CALL',
      'SEMANTIC_QUERY_LLM_INPUT',
      'SEMANTIC_QUERY_LLM_OUTPUT',
      'MCP_TOOL_RESULT',
      'MCP_TOOL_CALL',
      'MCP_DB_PREFLIGHT',
      'DYNAMIC_SQL_EXECUTION',
      'MCP_TOOL_RESULT',
      'MCP_FINAL_ANSWER',
      'RULE_MATCH (McpToolStep)',
      'SET_STATE',
    ]);
  });

  it('50 blocks postgres.query right after interpret', async () => {
    h.llm.setScript([
      callTool('db.semantic.interpret', { question: QUESTION }),
      INTERPRETED,
      callTool('postgres.query', {}),
      { kind: 'RESP_TEXT', reply: 'Blocked.' },
    ]);
    const result = await h.turn({ message: QUESTION });
    expect(mcpOf(result.context)).toMatchObject({
      finalAnswer: 'Tool sequence guardrail blocked this action. Please rephrase or provide missing details.',
      lifecycle: { outcome: 'BLOCKED', errorMessage: 'SEMANTIC_PIPELINE_SEQUENCE_GUARD_BLOCKED' },
    });
  });

  it('51 (D6) blocks db.semantic.query before a successful interpret', async () => {
    h.llm.setScript([callTool('db.semantic.query', {}), { kind: 'RESP_TEXT', reply: 'Blocked.' }]);
    const result = await h.turn({ message: QUESTION });
    expect(h.llm.requestsOf('SEMANTIC_QUERY')).toHaveLength(0);
    expect(mcpOf(result.context)['lifecycle']).toMatchObject({
      status: 'GUARDRAIL_BLOCKED_NEXT_TOOL',
      outcome: 'BLOCKED',
      errorMessage: 'SEMANTIC_PIPELINE_SEQUENCE_GUARD_BLOCKED',
    });
  });

  it('52 asks for clarification, then resumes the chain with the answer on the next turn', async () => {
    const first = await askForClarification();
    expect(mcpOf(first.context)['finalAnswer']).toBe(CLARIFY);
    expect(first.context['pending_clarification']).toEqual({ question: CLARIFY, reason: 'SEMANTIC_QUERY_AMBIGUITY' });
    expect(semanticOf(first.context)['clarification']).toMatchObject({
      required: true,
      signal: 'CLARIFICATION_REQUIRED',
    });
    expect(await h.payload(first.conversationId, 'MCP_FINAL_ANSWER')).toMatchObject({
      reason: 'SEMANTIC_CLARIFICATION_REQUIRED',
      answer: CLARIFY,
    });
    expect(first.outcome).toBe('CLARIFY');

    h.llm.setScript([answer('Using FAILED (120).'), { kind: 'RESP_TEXT', reply: 'Using FAILED (120).' }]);
    const second = await h.turn({ conversationId: first.conversationId, message: '/sql2 FAILED' });
    const stages = await h.stages(first.conversationId, 2);
    expect(stages).not.toContain('MCP_SKIPPED_PENDING_CLARIFICATION');
    expectInOrder(stages, ['MCP_CONTEXT_CLEARED', 'MCP_PLAN_LLM_INPUT', 'MCP_FINAL_ANSWER']);
    expect(second.context['pending_clarification']).toBeUndefined();
    expect(semanticOf(second.context)['clarification']).toMatchObject({ resolved: true, signal: 'NONE' });
  });

  it('52 variant: a reply no classifier routes resumes the chain from COMPLETED (rule 71), never re-summarizes', async () => {
    const first = await askForClarification();
    expect(first.state).toBe('COMPLETED');

    h.llm.setScript([
      { kind: 'INTENT', reply: { intent: 'SEMANTIC_QUERY', state: 'COMPLETED', confidence: 0.9 } },
      answer('Using FAILED (120).'),
      { kind: 'RESP_TEXT', match: 'Answer from the data: Using FAILED (120).', reply: 'Using FAILED (120).' },
    ]);
    const second = await h.turn({ conversationId: first.conversationId, message: 'the failed ones, code 120' });
    expect(second.payload.value).toBe('Using FAILED (120).');
    const stages = await h.stages(first.conversationId, 2);
    expectInOrder(stages, [
      'RULE_APPLIED (McpToolStep PreMcp)',
      'MCP_CONTEXT_CLEARED',
      'MCP_PLAN_LLM_INPUT',
      'MCP_FINAL_ANSWER',
      'RULE_APPLIED (McpToolStep)',
    ]);
    expect(semanticOf(second.context)['clarification']).toMatchObject({ resolved: true, signal: 'NONE' });
  });

  it('52 variant: an unsupported interpretation answers with its message', async () => {
    h.llm.setScript([
      callTool('db.semantic.interpret', { question: 'remove account UPSA100' }),
      {
        kind: 'SEMANTIC_INTERPRET',
        reply: {
          meta: { operationSupported: false, unsupportedMessage: 'Writes are not allowed.' },
          canonicalIntent: null,
        },
      },
      { kind: 'RESP_TEXT', reply: 'Writes are not allowed.' },
    ]);
    const result = await h.turn({ message: "/sql2 Delete from zp_disco_request where account_id='UPSA100'" });
    expect(mcpOf(result.context)['finalAnswer']).toBe('Writes are not allowed.');
    expect(await h.payload(result.conversationId, 'MCP_FINAL_ANSWER')).toMatchObject({
      reason: 'SEMANTIC_UNSUPPORTED',
    });
  });

  it('a generated write is refused by the guardrail, retried with feedback, then reported unsupported; nothing is written', async () => {
    const deleteSql = {
      kind: 'SEMANTIC_QUERY',
      reply: { sql: "delete from zp_disco_request where account_id = 'UPSA100'", params: {} },
    };
    h.llm.setScript([
      callTool('db.semantic.interpret', { question: 'delete' }),
      INTERPRETED,
      callTool('db.semantic.query', {}),
      { ...deleteSql, times: 3 },
      { kind: 'RESP_TEXT', reply: 'That cannot be done.' },
    ]);
    const result = await h.turn({ message: "/sql2 Delete from zp_disco_request where account_id='UPSA100'" });
    const retries = h.llm.requestsOf('SEMANTIC_QUERY');
    expect(retries).toHaveLength(3);
    expect(retries[1]?.userText).toContain('Your previous answer was refused: DELETE statements are not allowed');
    expect(String(mcpOf(result.context)['finalAnswer'])).toContain('I can only run read-only queries');
    expect(await requestCount()).toBe(11);
  });

  it('a write sent straight to postgres.query by the planner is a tool error, never executed', async () => {
    h.llm.setScript([
      callTool('postgres.query', { query: 'delete from zp_disco_request' }),
      { kind: 'RESP_TEXT', reply: 'Failed.' },
    ]);
    const result = await h.turn({ message: "/sql2 Delete from zp_disco_request where account_id='UPSA100'" });
    expect(mcpOf(result.context)).toMatchObject({
      finalAnswer: 'Tool execution failed',
      lifecycle: { status: 'TOOL_ERROR', error: true },
    });
    expect(await h.payload(result.conversationId, 'MCP_TOOL_ERROR')).toMatchObject({
      error_class: 'SQL_GUARDRAIL_REJECTED',
    });
    expect(await requestCount()).toBe(11);
  });
});
