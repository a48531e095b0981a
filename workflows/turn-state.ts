import type { ApprovalDecision } from '../core/turn/contracts';
import type { TurnResult } from '../core/turn/contracts';
import type { HeldToolResolution } from '../core/turn/executor';
import { approvalDecisionProblem, describeProblem } from '../core/turn/operator-decision';
import type { ApprovalAck, ApprovalDecisionInput, HeldTool, PendingApproval, TurnProgress } from './messages';
import { TurnStatus } from './turn-status';

/** The workflow's in-memory view of the turn, read by queries and updates. */
export class TurnState {
  status: TurnStatus = TurnStatus.Running;
  pending: PendingApproval | null = null;
  decision: ApprovalDecision | null = null;
  /** #22: the call held for an operator, and their decision once made. */
  held: HeldTool | null = null;
  holdResolution: HeldToolResolution | null = null;
  result: TurnResult | null = null;
  failure: { type: string; message: string } | null = null;
  /** Deterministic counters for decision call keys and the memo. */
  decisions = 0;
  toolCalls = 0;
  plannerIterations = 0;
  /** conversationTurnV2: the driver decisions of this turn, readable, for the memo. */
  decisionLog: string[] = [];

  progress(): TurnProgress {
    const progress: TurnProgress = {
      status: this.status,
      pending: this.pending,
      result: this.result,
      failure: this.failure,
    };
    return this.held ? { ...progress, held: this.held } : progress;
  }

  hasMilestone(): boolean {
    return this.status !== TurnStatus.Running;
  }

  /** Throws with a reason when a decision cannot apply (core/turn/operator-decision.ts's rules); the update validator. */
  validateDecision(input: ApprovalDecisionInput): void {
    const problem = approvalDecisionProblem(input);
    if (problem) throw new Error(describeProblem(problem));
    if (!this.pending) {
      throw new Error(
        this.decision
          ? 'APPROVAL_ALREADY_DECIDED: this turn has no pending approval any more.'
          : 'NOT_AWAITING_APPROVAL: this turn is not waiting for an approval.'
      );
    }
    if (input.callIndex !== undefined && input.callIndex !== this.pending.callIndex) {
      throw new Error(`STALE_DECISION: the pending call is #${this.pending.callIndex}, not #${input.callIndex}.`);
    }
  }

  applyDecision(input: ApprovalDecisionInput): ApprovalAck {
    const pending = this.pending as PendingApproval;
    const decision = input.decision === 'approve' ? 'APPROVED' : 'REJECTED';
    this.decision = { decision, reason: input.reason ?? null, decidedBy: input.decidedBy ?? null };
    this.pending = null;
    this.status = TurnStatus.Running;
    return { accepted: true, toolCode: pending.toolCode, callIndex: pending.callIndex, decision };
  }
}
