import type { Client } from '@temporalio/client';
import { turnIdFor, type TurnInput } from '../../core/turn/contracts';
import { committedTurnCount, loadConversation } from '../../db/repositories/conversation';
import { isRetired } from '../../db/repositories/retired';
import { claimTurn, findTurnClaim, releaseTurnClaim, type TurnClaim } from '../../db/repositories/turn-request';
import type { Database } from '../../db/pool';
import { decideApprovalUpdate, type ApprovalDecisionInput } from '../../workflows/messages';
import { isTemporalUnreachable } from '../../config/temporal-client';
import { OPERATOR_DECISION_TIMEOUT_DEFAULT_MS, TEMPORAL_TASK_QUEUE_DEFAULT } from '../../config/env';
import { conflict, notFound } from '../errors';
import { conversationRetired } from '../message-refusals';
import type { StillRunningReason, TurnGateway, TurnRef, TurnReply, TurnRequest } from '../ports';
import { committedTurnReply } from './committed-reply';
import { DecisionDeadline } from './decision-deadline';
import {
  describeForDecision,
  describeOrNull,
  describeOwnOrNull,
  pendingWorkflowTaskAttempt,
  sendDecision,
} from './decisions';
import { recordedPatches } from '../../observability/turn-patches';
import { approvalSettlement, endedTurnRefusal } from './ended-approval';
import { TurnFollowers } from './followers';
import { onOwnQueue, startedForKey, startTurnWorkflow } from './start';
import { claimOf, refBase, refOf, requestHash } from './turn-claim';
import { conversationIdForKey, originalTurnInput, parseTurnId, turnNotFound } from './turn-id';
import { idTaken, inProgress, keyReused, replyGone, retired, startUnanswered } from './turn-refusals';

export interface TemporalTurnGatewayOptions {
  client: Client;
  db: Database;
  taskQueue: string;
  /**
   * Ask the server to hand a new turn's first workflow task back in the start response (eager
   * workflow start), saving the task queue's round trip. Only for a client whose connection is the
   * NativeConnection of a worker polling `taskQueue` in this process: sdk-core then gives that task to
   * the worker, or drops the request when the worker has no free slot.
   */
  eagerStart?: boolean;
  /** How long a caller waits for its turn's answer before a 202 RUNNING (TURN_REPLY_TIMEOUT_MS). */
  replyTimeoutMs: number;
  /** An approval's one deadline, its Temporal calls' and its worker's (OPERATOR_DECISION_TIMEOUT_MS; default 10 s). */
  decisionTimeoutMs?: number;
  now?: () => Date;
}

/** Rounds of "the conversation moved on while we looked": each one re-reads the turn count. */
const MAX_ROUNDS = 3;

/**
 * Starts conversation turns on Temporal and answers for them (D13): one running turn per
 * conversation, deterministic workflow ids, and idempotency keys that make a retried request
 * attach to the turn it already started instead of running a second one.
 */
export class TemporalTurnGateway implements TurnGateway {
  /** HTTP callers waiting on the same turn share one `awaitMilestone` update (see TurnFollowers). */
  private readonly followers: TurnFollowers;

  constructor(private readonly options: TemporalTurnGatewayOptions) {
    this.followers = new TurnFollowers({
      replyTimeoutMs: options.replyTimeoutMs,
      stillRunning: (ref, reason) => this.stillRunning(ref, reason),
      committedReply: (ref) => committedTurnReply(options.db, ref),
    });
  }

  /** Callers waiting on a turn, now or later, are answered at once with a 202 RUNNING: the API is stopping. */
  release(): void {
    this.followers.release();
  }

  /**
   * The turn has not committed: the conversation is where the previous turn left it. A first turn's worker may not
   * have created it yet; it is created here (as its first step would), so that GET /conversation/{id} and its
   * stream, where the answer will come, do not answer 404 meanwhile.
   */
  private async stillRunning(ref: TurnRef, reason: StillRunningReason): Promise<TurnReply> {
    const loaded = await loadConversation(this.options.db, ref.conversationId, 0).catch(() => null);
    return {
      kind: 'RUNNING',
      ref,
      reason,
      intent: loaded?.conversation.intentCode ?? 'UNKNOWN',
      state: loaded?.conversation.stateCode ?? 'UNKNOWN',
    };
  }

  private get client(): Client {
    return this.options.client;
  }

  private async start(input: TurnInput) {
    try {
      return await startTurnWorkflow(this.client, this.options.taskQueue, input, {
        eager: this.options.eagerStart ?? false,
      });
    } catch (err) {
      if (isTemporalUnreachable(err)) throw startUnanswered(input);
      throw err;
    }
  }

  async sendMessage(request: TurnRequest): Promise<TurnReply> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const reply = await this.attempt(request);
      if (reply) return reply;
    }
    throw inProgress();
  }

  /**
   * The conversation a first message with this key and no conversationId opens here (conversationIdForKey, scoped
   * by the task queue). A deployment on another queue than the default derived the unscoped id before it upgraded
   * to this build: a key it claimed then keeps that conversation, so the request's retry still finds its turn. A claim
   * that build tied to another deployment's turn (on a shared namespace, the same key there) ran nothing here: it is
   * released, and the request opens this deployment's own conversation.
   */
  async keyedConversation(idempotencyKey: string): Promise<string> {
    const scoped = conversationIdForKey(idempotencyKey, this.options.taskQueue);
    const unscoped = conversationIdForKey(idempotencyKey, TEMPORAL_TASK_QUEUE_DEFAULT);
    if (scoped === unscoped) return scoped;
    const claim = await findTurnClaim(this.options.db, idempotencyKey);
    if (claim?.conversationId !== unscoped) return scoped;
    const run = await describeOrNull(this.client.workflow.getHandle(claim.workflowId));
    if (!run || onOwnQueue(run, this.options.taskQueue)) return unscoped;
    await releaseTurnClaim(this.options.db, unscoped, idempotencyKey);
    return scoped;
  }

  async decideApproval(conversationId: string, turnNumber: number, decision: ApprovalDecisionInput) {
    const deadline = new DecisionDeadline(
      this.options.decisionTimeoutMs ?? OPERATOR_DECISION_TIMEOUT_DEFAULT_MS,
      this.client
    );
    const handle = this.client.workflow.getHandle(turnIdFor(conversationId, turnNumber));
    // Another deployment's turn on the namespace (another task queue) is not this one's to decide: its approvers are.
    const description = await describeForDecision(handle, this.options.taskQueue, deadline);
    if (!description) {
      throw notFound('TURN_NOT_FOUND', `No turn ${turnNumber} in conversation ${conversationId}.`);
    }
    // A turn that has ended says how the call was settled, as the turn itself does while it runs.
    const ended = async (status: string) => {
      const call = await approvalSettlement(this.options.db, conversationId, turnNumber, decision.callIndex);
      return endedTurnRefusal(turnNumber, status, decision.callIndex, call);
    };
    if (description.status.name !== 'RUNNING') throw await ended(description.status.name);
    const target = {
      client: this.client,
      workflowId: handle.workflowId,
      taskQueue: description.taskQueue,
      workflowType: description.type,
      recordedPatches: recordedPatches(description.searchAttributes),
      deadline,
      notWaiting: ended,
      refusedCode: 'APPROVAL_REJECTED',
      workflowTaskAttempt: pendingWorkflowTaskAttempt(description),
    };
    await sendDecision(target, () => handle.executeUpdate(decideApprovalUpdate, { args: [decision] }));
    const ref = { conversationId, turnNumber, workflowId: handle.workflowId, runId: description.runId };
    return this.followers.follow(handle, ref, { fresh: true });
  }

  async retryTurn(workflowId: string): Promise<TurnReply> {
    const { conversationId, turnNumber } = parseTurnId(workflowId);
    const handle = this.client.workflow.getHandle(workflowId);
    // Another deployment's turn (another task queue) would run in this one's worker and database, past its gates.
    const description = await describeOwnOrNull(handle, this.options.taskQueue);
    if (!description) throw turnNotFound(workflowId);
    const status = description.status.name;
    if (status === 'RUNNING') throw inProgress();
    if (status === 'COMPLETED') throw conflict('TURN_ALREADY_COMPLETED', `Turn ${workflowId} already completed.`);
    // Its history still holds the input: re-running it would bring a pruned or erased conversation's text back.
    if (await isRetired(this.options.db, conversationId)) throw conversationRetired(conversationId);
    const input = await originalTurnInput(this.client, handle);
    if ((await committedTurnCount(this.options.db, conversationId)) + 1 !== turnNumber) {
      throw conflict('STALE_TURN', `The conversation has moved past turn ${turnNumber}; it cannot be re-run.`);
    }
    const started = await this.start(input);
    if (started.kind !== 'STARTED') throw inProgress();
    return this.followers.follow(started.handle, refOf(input, started.runId));
  }

  /** One round of start-or-attach; null means "the turn count moved, look again". */
  private async attempt(request: TurnRequest): Promise<TurnReply | null> {
    const { db } = this.options;
    const key = request.idempotencyKey;
    if (key) {
      const claim = await findTurnClaim(db, key);
      if (claim) return this.resume(claim, request);
    }
    const count = await committedTurnCount(db, request.conversationId);
    // A retired id has no row: only a first turn can be one, and Temporal may no longer hold its completed turns.
    if (count === 0 && (await isRetired(db, request.conversationId))) throw conversationRetired(request.conversationId);
    const input = this.turnInput(request, count + 1);
    if (key) {
      const claimed = await claimTurn(db, {
        ...claimOf(input),
        idempotencyKey: key,
        requestHash: requestHash(request),
      });
      if (!claimed) return null; // A concurrent request with the same key won; read its claim next round.
    }
    return this.startOrAttach(input);
  }

  private async startOrAttach(input: TurnInput): Promise<TurnReply | null> {
    const started = await this.start(input);
    if (started.kind === 'STARTED' || started.kind === 'RUNNING_SAME_KEY') {
      return this.followers.follow(started.handle, refOf(input, started.runId));
    }
    if (input.idempotencyKey) await releaseTurnClaim(this.options.db, input.conversationId, input.idempotencyKey);
    if (started.kind === 'RUNNING_OTHER') throw inProgress(started.workflowId);
    if (started.kind === 'OTHER_QUEUE') throw idTaken(input);
    // Closed and not reusable: the turn completed. Normally the conversation has moved past it since we looked.
    if ((await committedTurnCount(this.options.db, input.conversationId)) + 1 === input.turnNumber) {
      throw retired(input);
    }
    return null;
  }

  /** The key already names a turn: answer for it, starting it if a crash left it claimed but unstarted. */
  private async resume(claim: TurnClaim, request: TurnRequest): Promise<TurnReply | null> {
    if (claim.conversationId !== request.conversationId) throw keyReused();
    if (claim.requestHash !== null && claim.requestHash !== requestHash(request)) throw keyReused();
    const handle = this.client.workflow.getHandle(claim.workflowId);
    const description = await describeOrNull(handle);
    if (description && startedForKey(description, claim.idempotencyKey, this.options.taskQueue)) {
      return this.followers.follow(handle, { ...refBase(claim), runId: description.runId });
    }
    if (description) {
      // The key's run failed (or never started) and another request has run this turn number since: the key's
      // request never committed, so it is not that turn. It goes on as a request of its own (the next round).
      await releaseTurnClaim(this.options.db, claim.conversationId, claim.idempotencyKey);
      return null;
    }
    const count = await committedTurnCount(this.options.db, claim.conversationId);
    // The key's turn committed, and Temporal no longer holds it (past the namespace's retention): running it again
    // would apply the request twice.
    if (count >= claim.turnNumber) throw replyGone(claim);
    if (count + 1 !== claim.turnNumber) {
      await releaseTurnClaim(this.options.db, claim.conversationId, claim.idempotencyKey);
      return null;
    }
    return this.startOrAttach(this.turnInput(request, claim.turnNumber));
  }

  private turnInput(request: TurnRequest, turnNumber: number): TurnInput {
    return {
      conversationId: request.conversationId,
      turnNumber,
      turnId: turnIdFor(request.conversationId, turnNumber),
      message: request.message,
      inputParams: request.inputParams,
      reset: request.reset,
      requestContext: request.requestContext,
      idempotencyKey: request.idempotencyKey,
      receivedAt: (this.options.now?.() ?? new Date()).toISOString(),
    };
  }
}
