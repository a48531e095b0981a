import type { ApprovalDecision } from '../core/turn/contracts';
import type { TurnResult } from '../core/turn/contracts';
import type { HeldToolResolution } from '../core/turn/executor';
import { firstTextProblem } from '../core/text/unsafe-text';
import type { ApprovalAck, ApprovalDecisionInput, HeldTool, PendingApproval, TurnProgress } from './messages';

/** The workflow's in-memory view of the turn, read by queries and updates. */
export class TurnState {
  status: TurnProgress['status'] = 'RUNNING';
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
    return this.status !== 'RUNNING';
  }

  /** Throws with a reason when a decision cannot apply; used as the update validator. */
  validateDecision(input: ApprovalDecisionInput): void {
    if (input === null || typeof input !== 'object')
      throw new Error('INVALID_DECISION: the decision must be an object.');
    if (input.decision !== 'approve' && input.decision !== 'reject') {
      throw new Error('INVALID_DECISION: decision must be "approve" or "reject".');
    }
    if (input.reason != null && typeof input.reason !== 'string')
      throw new Error('INVALID_DECISION: reason must be text.');
    if (input.decidedBy != null && typeof input.decidedBy !== 'string')
      throw new Error('INVALID_DECISION: decidedBy must be text.');
    const unsafe = firstTextProblem({ reason: input.reason, decidedBy: input.decidedBy });
    if (unsafe) throw new Error(`${unsafe.code}: ${unsafe.message}`);
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
    this.status = 'RUNNING';
    return { accepted: true, toolCode: pending.toolCode, callIndex: pending.callIndex, decision };
  }
}
