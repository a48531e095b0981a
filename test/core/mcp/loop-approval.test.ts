import { McpLoopSettings } from '../../../core/config/settings/mcp';
import { runMcpStep } from '../../../core/mcp';
import type { JsonObject } from '../../../core/json';
import { toolDescriptor } from '../../../core/mcp/tools';
import { mcpTool } from '../../../db/seed/builders';
import { snapshotOf } from '../../support/config-rows';
import { answer, callTool, FakeMcpExecutor, loopPlan, stepInput, tool } from './fake-executor';

const SUBMIT = tool('loan.application.submit', {
  sideEffect: 'IDEMPOTENT_WRITE',
  requiresApproval: true,
  approvalTimeoutMs: 60000,
});
const RATING = tool('loan.credit.rating.check');

function mcpOf(session: { context: JsonObject }): JsonObject {
  return session.context['mcp'] as JsonObject;
}

describe('MCP loop: human approval (D16)', () => {
  it('waits for approval and then runs the write tool exactly once', async () => {
    const exec = new FakeMcpExecutor(
      loopPlan([RATING, SUBMIT]),
      [callTool('loan.application.submit', { customerId: '1234' }), answer('Submitted LA-90311.')],
      { 'loan.application.submit': { status: 200, mapped: { applicationId: 'LA-90311' } } }
    );
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.approvals).toEqual([
      {
        toolCode: 'loan.application.submit',
        args: { customerId: '1234' },
        callIndex: 1,
        sideEffect: 'IDEMPOTENT_WRITE',
        timeoutMs: 60000,
      },
    ]);
    expect(exec.toolInputs).toHaveLength(1);
    expect(exec.decisions).toEqual([
      { kind: 'APPROVAL', toolCode: 'loan.application.submit', reason: 'APPROVED', iteration: 1 },
    ]);
    expect(exec.carried[0]).toEqual({
      callKey: '19-McpTool-tool-1',
      carryKey: '19-McpTool-carried-1',
      stages: ['MCP_TOOL_APPROVAL_REQUESTED', 'MCP_TOOL_APPROVAL_GRANTED'],
    });
    expect(mcpOf(out.session)['finalAnswer']).toBe('Submitted LA-90311.');
  });

  it.each([
    ['REJECTED', 'APPROVAL_REJECTED', 'MCP_TOOL_APPROVAL_REJECTED', 'rejected by the approver'],
    ['EXPIRED', 'APPROVAL_EXPIRED', 'MCP_TOOL_APPROVAL_EXPIRED', 'not approved in time'],
  ] as const)('does not run the tool when the decision is %s', async (decision, status, stage, text) => {
    const exec = new FakeMcpExecutor(
      loopPlan([SUBMIT]),
      [callTool('loan.application.submit', { customerId: '1' })],
      {},
      {
        decision,
        reason: null,
        decidedBy: null,
      }
    );
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.toolInputs).toHaveLength(0);
    expect(exec.carried[0]?.stages).toEqual(['MCP_TOOL_APPROVAL_REQUESTED', stage]);
    expect(exec.carried[0]?.callKey).toBe('19-McpTool-finalize');
    const mcp = mcpOf(out.session);
    expect(String(mcp['finalAnswer'])).toContain(text);
    expect(mcp['lifecycle']).toMatchObject({
      status,
      outcome: 'BLOCKED',
      finished: true,
      blocked: true,
      errorMessage: status,
    });
  });

  // One default, two ways to it: the descriptor of a row without approval_timeout_ms gets the setting's, and the
  // loop falls back on its own for a descriptor without one. Both must wait the documented 15 minutes.
  it('waits as long as McpToolStep.APPROVAL_TIMEOUT_MS defaults to when the descriptor has none', async () => {
    const noTimeout = tool('loan.application.submit', { requiresApproval: true, approvalTimeoutMs: null });
    const exec = new FakeMcpExecutor(
      loopPlan([noTimeout]),
      [callTool('loan.application.submit')],
      {},
      {
        decision: 'EXPIRED',
        reason: null,
        decidedBy: null,
      }
    );
    await runMcpStep(stepInput(), exec);
    expect(exec.approvals[0]?.timeoutMs).toBe(McpLoopSettings.approvalTimeoutMs.default);
    expect(exec.approvals[0]?.timeoutMs).toBe(15 * 60 * 1000);
  });

  it('gives a requires_approval row without a timeout or ce_config row the same default', () => {
    const row = mcpTool({
      toolId: 1,
      toolCode: 'loan.application.submit',
      toolGroup: 'HTTP_API',
      intentCode: 'ANY',
      stateCode: 'ANY',
      requiresApproval: true,
    });
    expect(toolDescriptor(row, snapshotOf({ mcpTools: [row] })).approvalTimeoutMs).toBe(15 * 60 * 1000);
  });
});

describe('MCP loop: semantic chain', () => {
  const SEMANTIC = [
    tool('db.semantic.interpret', { toolGroup: 'DB' }),
    tool('db.semantic.query', { toolGroup: 'DB' }),
    tool('postgres.query', { toolGroup: 'DB' }),
  ];
  const INTERPRET = {
    meta: { confidence: 0.95, needsClarification: false },
    canonicalIntent: { intent: 'LIST_REQUESTS', entity: 'DISCONNECT_REQUEST' },
  };

  it('blocks db.semantic.query before a successful interpret (D6, scenario 51)', async () => {
    const exec = new FakeMcpExecutor(loopPlan(SEMANTIC), [callTool('db.semantic.query', {})]);
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.toolInputs).toHaveLength(0);
    expect(mcpOf(out.session)['lifecycle']).toMatchObject({
      outcome: 'BLOCKED',
      errorMessage: 'SEMANTIC_PIPELINE_SEQUENCE_GUARD_BLOCKED',
    });
  });

  it('blocks postgres.query right after interpret (scenario 50)', async () => {
    const exec = new FakeMcpExecutor(
      loopPlan(SEMANTIC),
      [callTool('db.semantic.interpret', { question: 'q' }), callTool('postgres.query', {})],
      {
        'db.semantic.interpret': INTERPRET,
      }
    );
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.toolInputs).toHaveLength(1);
    expect(exec.decisions[0]).toMatchObject({
      kind: 'GUARDRAIL_BLOCKED',
      reason: 'SEMANTIC_PIPELINE_SEQUENCE_GUARD_BLOCKED',
    });
    expect(mcpOf(out.session)['finalAnswer']).toBe(
      'Tool sequence guardrail blocked this action. Please rephrase or provide missing details.'
    );
  });

  it('stops for a clarification question and leaves a pending clarification (scenario 52)', async () => {
    const question = 'Which status do you mean: FAILED or REJECTED?';
    const exec = new FakeMcpExecutor(
      loopPlan(SEMANTIC),
      [callTool('db.semantic.interpret', { question: 'failed ones' })],
      {
        'db.semantic.interpret': {
          meta: { needsClarification: true, clarificationQuestion: question },
          canonicalIntent: {},
        },
      }
    );
    const out = await runMcpStep(stepInput(), exec);
    expect(exec.calls.filter((c) => c.includes('plan'))).toHaveLength(1);
    expect(out.session.pendingClarification).toEqual({ question, reason: 'SEMANTIC_QUERY_AMBIGUITY' });
    expect(out.audits.map((a) => a.stage)).toContain('MCP_FINAL_ANSWER');
    expect(out.audits.find((a) => a.stage === 'MCP_FINAL_ANSWER')?.payload).toMatchObject({
      reason: 'SEMANTIC_CLARIFICATION_REQUIRED',
    });
    const mcp = mcpOf(out.session);
    expect(mcp['finalAnswer']).toBe(question);
    expect(mcp['semantic']).toMatchObject({ clarification: { signal: 'CLARIFICATION_REQUIRED', required: true } });
  });

  it('answers an unsupported operation with its message', async () => {
    const exec = new FakeMcpExecutor(
      loopPlan(SEMANTIC),
      [callTool('db.semantic.interpret', { question: 'delete all' })],
      {
        'db.semantic.interpret': { meta: { operationSupported: false, unsupportedMessage: 'Writes are not allowed.' } },
      }
    );
    const out = await runMcpStep(stepInput(), exec);
    expect(mcpOf(out.session)['finalAnswer']).toBe('Writes are not allowed.');
    expect(out.audits.find((a) => a.stage === 'MCP_FINAL_ANSWER')?.payload).toMatchObject({
      reason: 'SEMANTIC_UNSUPPORTED',
    });
  });
});
