import type { JsonObject } from '../../../core/json';
import { applyApprovalDenied, applyGuardBlock, approvalRequestedInput } from '../../../core/mcp/outcomes';
import { applyPlanDecision } from '../../../core/mcp/plan-apply';
import { buildFacts } from '../../../core/rules/facts';
import { evaluateRuleMatch } from '../../../core/rules/match';
import type { Session } from '../../../core/session';
import type { ApprovalDecision, ToolCallRequest } from '../../../core/turn/contracts';
import type { ApprovalRequest } from '../../../core/turn/executor';
import { loanConfirmationPack } from '../../../db/seed/packs/loan-confirmation';
import { stepInput, tool } from './fake-executor';

const SUBMIT = 'loan.application.submit';
const args = { customerId: '1234', requestedAmount: 35000, tenureMonths: 24 };
const call: ToolCallRequest = { toolCode: SUBMIT, args, callIndex: 4, idempotencyKey: 'turn-x-1/tool/4' };
const request: ApprovalRequest = {
  toolCode: SUBMIT,
  args,
  callIndex: 4,
  sideEffect: 'IDEMPOTENT_WRITE',
  timeoutMs: 8000,
};

const lifecycle = (s: Session): JsonObject => (s.context['mcp'] as JsonObject)['lifecycle'] as JsonObject;

/** The session after the planner asked to call the submit: what the turn holds as it parks on the approval. */
function planned(): Session {
  const session = stepInput({ intent: 'LOAN_APPLICATION', state: 'PROCESS_APPLICATION' }).session;
  applyPlanDecision(session, { action: 'CALL_TOOL', toolCode: SUBMIT, args, answer: null, operationTag: null });
  return session;
}

const denied = (decision: ApprovalDecision['decision']): Session =>
  applyApprovalDenied(planned(), call, tool(SUBMIT), { decision, reason: null, decidedBy: 'x' });

/** The loan pack's POST_AGENT_MCP rules in PROCESS_APPLICATION that match the session, by id. */
function firing(session: Session): number[] {
  const facts = buildFacts(session, {});
  return (loanConfirmationPack.rows.rules ?? [])
    .filter((r) => r.phase === 'POST_AGENT_MCP' && r.stateCode === 'PROCESS_APPLICATION')
    .filter((r) => evaluateRuleMatch(r, { userText: 'go ahead', facts, context: session.context }).matched)
    .map((r) => r.ruleId);
}

describe('a call that waits for, or was refused, an approval is not a call that ran (D16)', () => {
  it('the MCP_TOOL_APPROVAL_REQUESTED row is written with the call waiting, not executed', () => {
    // The planner's CALL_TOOL leaves the lifecycle as for the call's result; nothing has run yet.
    expect(lifecycle(planned())).toMatchObject({ status: 'TOOL_RESULT', toolExecuted: true });
    const input = approvalRequestedInput(
      () => ({ ...stepInput(), session: planned() }),
      request,
      '2030-01-01T00:00:00Z'
    );
    expect(input.carryAudits?.map((a) => a.stage)).toEqual(['MCP_TOOL_APPROVAL_REQUESTED']);
    expect(lifecycle(input.session)).toMatchObject({
      status: 'AWAITING_APPROVAL',
      outcome: 'IN_PROGRESS',
      finished: false,
      toolExecuted: false,
      blocked: false,
      error: false,
      lastAction: 'CALL_TOOL',
      lastToolCode: SUBMIT,
    });
  });

  it.each([
    ['REJECTED', 142],
    ['EXPIRED', 143],
  ] as const)(
    '%s: blocked, so the loan pack does not complete, and says the approval was refused',
    (how, refusedRule) => {
      const session = denied(how);
      expect(lifecycle(session)).toMatchObject({
        status: `APPROVAL_${how}`,
        finished: true,
        blocked: true,
        error: false,
        toolExecuted: false,
      });
      // Rule 133 took the rejected submit for a processed application: COMPLETED, then CLOSED on the next message.
      // 141 (back to CONFIRMATION) fires too; the refusal's own rule comes after it, so its state is the turn's.
      expect(firing(session)).toEqual([141, refusedRule]);
    }
  );

  it('a guardrail block is no processed application either; an answer of the planner is', () => {
    const blocked = applyGuardBlock(
      planned(),
      { action: 'CALL_TOOL', toolCode: SUBMIT, args, answer: null, operationTag: null },
      'NEXT_TOOL_GUARDRAIL_BLOCKED',
      ''
    );
    expect(firing(blocked.session)).toEqual([141]);
    const answered = planned();
    applyPlanDecision(answered, {
      action: 'ANSWER',
      toolCode: null,
      args: {},
      answer: 'Submitted LA-1.',
      operationTag: null,
    });
    expect(firing(answered)).toEqual([133]);
  });
});
