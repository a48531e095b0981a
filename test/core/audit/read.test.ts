import { publicAuditPayload } from '../../../api/db-queries';
import { AuditStage } from '../../../core/audit/payloads';
import { parseAudit, unreadableAuditText } from '../../../core/audit/read';
import { buildTrace, UNREADABLE_AUDIT_ROW } from '../../../core/audit/trace';
import { McpAudit } from '../../../core/mcp/constants';
import { approvalAudits } from '../../../core/mcp/outcomes';
import { applyToolResult, toolCallAuditPayload } from '../../../core/mcp/plan-apply';
import { turnFactsOf } from '../../../core/whatif/facts';
import { sessionFor } from '../../support/config-rows';

const call = { toolCode: 'order.lookup', args: { orderId: 'A-1' }, callIndex: 2, idempotencyKey: 't/tool/2' };
const session = sessionFor('lookup A-1');

describe('parseAudit', () => {
  it("reads what core's writers write, as their declared types", () => {
    const toolCall = parseAudit({ stage: McpAudit.ToolCall, payload: toolCallAuditPayload(session, call, 'X', 1) });
    expect(toolCall).toMatchObject({ kind: 'read', stage: McpAudit.ToolCall, meta: null });
    if (toolCall.kind === 'read' && toolCall.stage === McpAudit.ToolCall) {
      expect([toolCall.payload.tool_code, toolCall.payload.args, toolCall.payload.call_index]).toEqual([
        'order.lookup',
        { orderId: 'A-1' },
        2,
      ]);
    }
    const [result] = applyToolResult(sessionFor('lookup A-1'), call, 'orders', { rows: [1] });
    expect(parseAudit(result!)).toMatchObject({ kind: 'read', payload: { rows: '{"rows":[1]}' } });
    const decision = { decision: 'REJECTED', reason: 'no', decidedBy: 'ops' } as const;
    const request = { ...call, sideEffect: 'READ_ONLY' as const, timeoutMs: 1000 };
    const [requested, decided] = approvalAudits(request, decision);
    expect(parseAudit(requested!)).toMatchObject({ kind: 'other', stage: McpAudit.ApprovalRequested });
    expect(parseAudit(decided!)).toEqual({
      kind: 'read',
      stage: McpAudit.ApprovalRejected,
      payload: { tool_code: 'order.lookup', call_index: 2, decision: 'REJECTED', reason: 'no', decided_by: 'ops' },
      meta: null,
    });
  });

  it('reads RULE_APPLIED under any source, and _meta when the policy kept it', () => {
    const payload = { ruleId: 12, action: 'SET_STATE', _meta: { intent: 'LOAN', state: 'S', userInputParams: {} } };
    expect(parseAudit({ stage: 'RULE_APPLIED (RulesStep)', payload })).toMatchObject({
      kind: 'read',
      stage: AuditStage.RuleApplied,
      meta: { intent: 'LOAN', state: 'S' },
    });
  });

  it("reads the turn's input and output as the console shows them", () => {
    expect(parseAudit({ stage: 'USER_INPUT', payload: { text: 'hi' } })).toMatchObject({ payload: { text: 'hi' } });
    const output = { output: { a: 1 }, outputFormat: null, responseType: 'EXACT', responseId: 3 };
    expect(parseAudit({ stage: 'ASSISTANT_OUTPUT', payload: output })).toMatchObject({ kind: 'read', payload: output });
    expect(parseAudit({ stage: 'ASSISTANT_OUTPUT', payload: { responseId: 3 } })).toMatchObject({
      kind: 'unreadable',
      problem: 'output is missing',
    });
  });

  it('reads rows of older releases that lack the fields added since', () => {
    expect(parseAudit({ stage: 'STEP_ERROR', payload: { step: 'Rules' } })).toMatchObject({ kind: 'read' });
    expect(parseAudit({ stage: 'ENGINE_RETURN', payload: { intent: 'A', state: 'B' } })).toMatchObject({
      kind: 'read',
    });
  });

  it.each([
    ['a null payload', 'STEP_ENTER', null, 'its payload is null, not an object'],
    ['an array payload', 'USER_INPUT', ['hi'], 'its payload is an array, not an object'],
    ['a string payload', 'MCP_TOOL_CALL', 'x', 'its payload is a string, not an object'],
    ['no payload at all', 'STEP_EXIT', undefined, 'its payload is a undefined, not an object'],
    ['a missing key field', 'MCP_TOOL_CALL', { args: {} }, 'tool_code is missing'],
    [
      'a field of the wrong type',
      'STEP_ERROR',
      { step: 'S', errorMessage: { $where: 1 } },
      'errorMessage is an object',
    ],
    ['a number that is not one', 'STEP_EXIT', { step: 'S', durationMs: 'NaN' }, 'durationMs is a string'],
    ['an unknown decision', McpAudit.ApprovalGranted, { tool_code: 't', decision: 'MAYBE' }, 'decision is a string'],
    ['__proto__ as a stage', '__proto__', { step: 'S' }, null],
  ])('gives an unreadable row, never a TypeError, for %s', (_name, stage, payload, problem) => {
    const parsed = parseAudit({ stage, payload });
    if (problem === null) expect(parsed.kind).toBe('other');
    else expect(parsed).toEqual({ kind: 'unreadable', stage, problem });
  });

  it('reads a row whose _meta is not what the writer writes, without it', () => {
    expect(parseAudit({ stage: 'RESPONSE_X', payload: { _meta: 'x' } })).toMatchObject({ kind: 'other', meta: null });
    expect(parseAudit({ stage: 'USER_INPUT', payload: { text: 'hi', _meta: { intent: 7 } } })).toMatchObject({
      kind: 'read',
      payload: { text: 'hi' },
      meta: null,
    });
  });

  it('names the row when its stage is not even a string', () => {
    expect(parseAudit({ stage: 42, payload: {} })).toEqual({
      kind: 'unreadable',
      stage: '42',
      problem: 'its stage is not a string',
    });
  });
});

describe('readers of hostile rows', () => {
  const hostile = { stage: 'STEP_ERROR', payload: null };

  it('what-if facts: the turn says which row it could not read', () => {
    const facts = turnFactsOf([{ stage: 'USER_INPUT', payload: { text: 'hi' } }, hostile]);
    expect(facts.error).toBe(
      unreadableAuditText({ stage: 'STEP_ERROR', problem: 'its payload is null, not an object' })
    );
    const completed = turnFactsOf([
      { stage: 'RULE_APPLIED (RulesStep)', payload: { ruleId: '12; DROP' } },
      { stage: 'ENGINE_RETURN', payload: { intent: 'A', state: 'B', final_result: { payload: 'ok' } } },
    ]);
    expect(completed).toMatchObject({ intent: 'A', state: 'B', rulesFired: [], response: 'ok' });
    expect(completed.error).toBe('unreadable audit row RULE_APPLIED (RulesStep): ruleId is a string');
  });

  it('trace: a frame row it cannot read is a failed frame of its own', () => {
    const row = (stage: string, payload: unknown, auditId: number) => ({
      auditId,
      stage,
      createdAt: `2026-01-01T00:00:0${auditId}Z`,
      payload: payload as never,
      turnNumber: 1,
      runId: null,
    });
    const trace = buildTrace('c-1', [row('STEP_ENTER', [1], 1), row('STEP_ENTER', { step: 'Rules' }, 2)]);
    expect(trace.steps.map((s) => [s.step, s.status, s.error?.type ?? null])).toEqual([
      ['unreadable audit row STEP_ENTER: its payload is an array, not an object', 'ERROR', UNREADABLE_AUDIT_ROW],
      ['Rules', 'RUNNING', null],
    ]);
  });

  it('API: a STEP_ERROR row it cannot read shows as unreadable, and nothing of its contents', () => {
    const shown = publicAuditPayload('STEP_ERROR', { step: 'S', errorMessage: ['password=hunter2'] });
    expect(shown).toEqual({
      errorType: 'INTERNAL',
      errorMessage: 'unreadable audit row STEP_ERROR: errorMessage is an array',
    });
    expect(publicAuditPayload('STEP_ERROR', null as never)).toMatchObject({ errorMessage: expect.any(String) });
  });
});
