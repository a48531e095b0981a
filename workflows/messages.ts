import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { JsonObject } from '../core/json';
import type { TurnResult } from '../core/turn/contracts';

/** A tool call the turn is parked on until a person approves or rejects it (D16). */
export interface PendingApproval {
  toolCode: string;
  args: JsonObject;
  callIndex: number;
  /** ISO time after which the turn records APPROVAL_EXPIRED and moves on without the tool. */
  expiresAt: string;
  intent: string;
  state: string;
}

export type TurnStatus = 'RUNNING' | 'AWAITING_APPROVAL' | 'COMPLETED' | 'FAILED';

export interface TurnProgress {
  status: TurnStatus;
  pending: PendingApproval | null;
  result: TurnResult | null;
  failure: { type: string; message: string } | null;
}

export interface ApprovalDecisionInput {
  decision: 'approve' | 'reject';
  reason?: string | null;
  decidedBy?: string | null;
  /** When given, must match the pending call, so a stale decision cannot approve a different call. */
  callIndex?: number;
}

export interface ApprovalAck {
  accepted: true;
  toolCode: string;
  callIndex: number;
  decision: 'APPROVED' | 'REJECTED';
}

/** Current progress, for operators and for gateways that prefer polling. */
export const turnProgressQuery = defineQuery<TurnProgress>('turnProgress');

/**
 * Returns as soon as the turn has an answer for the caller: it completed, failed, or is waiting
 * for approval. The gateway calls it right after starting the turn.
 */
export const awaitMilestoneUpdate = defineUpdate<TurnProgress>('awaitMilestone');

/** Approve or reject the pending tool call; the validator refuses stale or malformed decisions. */
export const decideApprovalUpdate = defineUpdate<ApprovalAck, [ApprovalDecisionInput]>('decideApproval');
