import type { ApplicationFailure } from '@temporalio/workflow';
import type { ApprovalDecision, ApprovalDecisionKind } from '../core/turn/contracts';
import type { TurnResult } from '../core/turn/contracts';
import type { HeldToolResolution } from '../core/turn/executor';
import { approvalDecisionProblem } from '../core/turn/operator-decision';
import { decisionRefusal, problemRefusal } from './decision-refusal';
import type { ApprovalAck, ApprovalDecisionInput, HeldTool, PendingApproval, TurnProgress } from './messages';
import { TurnStatus } from './turn-status';
import { workflowNow } from './clock';

/** The workflow's in-memory view of the turn, read by queries and updates. */
export class TurnState {
  status: TurnStatus = TurnStatus.Running;
  pending: PendingApproval | null = null;
  decision: ApprovalDecision | null = null;
  /** D16: how each call of this turn that awaited an approval was settled, in order, so a late decision is told. */
  readonly settled = new Map<number, ApprovalDecisionKind>();
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

  /**
   * Throws a typed refusal (decision-refusal.ts) when a decision cannot apply (core/turn/operator-decision.ts's
   * rules); the update validator.
   * A decision for a call of this turn already decided or expired says so, whenever it comes: while the turn still
   * parks, runs the approved tool, or waits on a later call. Validators never run on replay, so their refusals can
   * change without a patch.
   */
  validateDecision(input: ApprovalDecisionInput, now = workflowNow()): void {
    const problem = approvalDecisionProblem(input);
    if (problem) throw problemRefusal(problem);
    const pending = this.pending;
    if (pending && (input.callIndex === undefined || input.callIndex === pending.callIndex)) {
      // The call is still pending, but its time may be up: a worker that was away when the timer fired gets the
      // fired timer and this update in one activation, and runs the update first, so the wait's timeout alone would
      // not refuse it. The workflow's clock is the activation's, recorded in history.
      if (now >= Date.parse(pending.expiresAt)) throw expiredRefusal(pending);
      return;
    }
    const named = input.callIndex ?? [...this.settled.keys()].at(-1);
    const settled = named === undefined ? undefined : this.settled.get(named);
    if (named !== undefined && settled) throw settledRefusal(named, settled);
    if (pending) {
      throw decisionRefusal('STALE_DECISION', `the pending call is #${pending.callIndex}, not #${input.callIndex}.`);
    }
    throw decisionRefusal('NOT_AWAITING_APPROVAL', 'this turn is not waiting for an approval.');
  }

  applyDecision(input: ApprovalDecisionInput): ApprovalAck {
    const pending = this.pending;
    // The validator runs before each handler and refuses this; should a handler ever find the call decided, the
    // update fails (an ApplicationFailure), not the workflow task.
    if (!pending) {
      throw decisionRefusal('APPROVAL_ALREADY_DECIDED', 'this turn has no pending approval any more.');
    }
    const decision = input.decision === 'approve' ? 'APPROVED' : 'REJECTED';
    this.decision = { decision, reason: input.reason ?? null, decidedBy: input.decidedBy ?? null };
    this.settled.set(pending.callIndex, decision);
    this.pending = null;
    this.status = TurnStatus.Running;
    return { accepted: true, toolCode: pending.toolCode, callIndex: pending.callIndex, decision };
  }
}

/** A decision for a call still pending after its expiresAt: the turn goes on without it, as the timeout says. */
function expiredRefusal(pending: PendingApproval): ApplicationFailure {
  const expired = `the approval of call #${pending.callIndex} expired at ${pending.expiresAt}; the turn goes on without that call.`;
  return decisionRefusal('APPROVAL_EXPIRED', expired);
}

/** A decision for a call that no longer waits: decided (by someone else, or a retried request) or expired. */
function settledRefusal(callIndex: number, settled: ApprovalDecisionKind): ApplicationFailure {
  if (settled === 'EXPIRED') {
    const expired = `the approval of call #${callIndex} expired; the turn went on without that call.`;
    return decisionRefusal('APPROVAL_EXPIRED', expired);
  }
  const decided = `call #${callIndex} was already ${settled === 'APPROVED' ? 'approved' : 'rejected'}.`;
  return decisionRefusal('APPROVAL_ALREADY_DECIDED', decided);
}
