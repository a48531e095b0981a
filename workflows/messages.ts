import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { Json, JsonObject } from '../core/json';
import type { TurnResult } from '../core/turn/contracts';
import type { ApprovalDecisionAction, HeldToolDecisionAction } from '../core/turn/operator-decision';
import type { TurnStatus } from './turn-status';

/** A tool call the turn is parked on until a person approves or rejects it (D16). */
export interface PendingApproval {
  toolCode: string;
  args: JsonObject;
  callIndex: number;
  /** ISO time the turn asked for the decision; absent from a worker of a build before it. */
  requestedAt?: string;
  /** ISO time after which the turn records APPROVAL_EXPIRED and moves on without the tool. */
  expiresAt: string;
  intent: string;
  state: string;
}

/** A tool call out of retries the turn keeps pending for an operator (#22). */
export interface HeldTool {
  toolCode: string;
  callIndex: number;
  sideEffect: string;
  attempts: number;
  failureType: string;
  error: string;
  /** A NON_IDEMPOTENT_WRITE that may have been applied: verify upstream, then markDone or fail. */
  outcomeUnknown: boolean;
  heldAt: string;
  /** ISO time after which the turn stops waiting and answers without the tool (ANSWER). */
  expiresAt: string;
  intent: string;
  state: string;
}

export { TurnStatus } from './turn-status';

/**
 * What a parked turn waits on, in its memo under PARKED_MEMO_KEY from the moment it parks until it resumes (turns
 * parked since PARKED_MEMO_PATCH): the approval lists, the held list and the console read it there, from Temporal
 * alone. They never query a turn that has it: a query a workflow task carries is answered before a quick local
 * activity that task schedules resolves, which can move what follows the activity into another task, a history that
 * no longer replays. `args` and `error` may be shortened (park.ts); their rows hold them whole.
 */
export interface ParkedCall {
  pending: PendingApproval | null;
  held: HeldTool | null;
}

/** The memo key of ParkedCall; the turn clears it (null) when it resumes. */
export const PARKED_MEMO_KEY = 'parkedCall';

export interface TurnProgress {
  status: TurnStatus;
  pending: PendingApproval | null;
  /** #22: set while status is HELD. Absent in progress of turns that predate it. */
  held?: HeldTool | null;
  result: TurnResult | null;
  failure: { type: string; message: string } | null;
}

export interface ApprovalDecisionInput {
  decision: ApprovalDecisionAction;
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

/** Approve or reject the pending tool call; the validator refuses stale or malformed decisions (core/turn/operator-decision.ts). */
export const decideApprovalUpdate = defineUpdate<ApprovalAck, [ApprovalDecisionInput]>('decideApproval');

export interface HeldToolDecisionInput {
  action: HeldToolDecisionAction;
  reason?: string | null;
  decidedBy?: string | null;
  /** markDone only, required: the result the operator verified upstream (any JSON). */
  result?: Json;
  /** When given, must match the held call, so a stale decision cannot act on a later hold. */
  callIndex?: number;
}

export interface HeldToolAck {
  accepted: true;
  toolCode: string;
  callIndex: number;
  action: HeldToolDecisionAction;
}

/**
 * #22: resolves a held tool call: retry it now (same idempotency key), skip (the failure stands, as
 * without a hold: a planner call ends the planner loop with the tool error, a direct call records it as
 * its result), fail the turn, or markDone with the verified result. Send it with
 * `temporal workflow update execute --name resolveHeldTool` or `convengine sre`.
 */
export const resolveHeldToolUpdate = defineUpdate<HeldToolAck, [HeldToolDecisionInput]>('resolveHeldTool');
