import type { TurnInput } from '../../core/turn/contracts';
import type { TurnClaim } from '../../db/repositories/turn-request';
import { ApiError, conflict } from '../errors';
import { messageRefusal } from '../message-refusals';

/*
 * Why the gateway cannot start a message's turn, or attach the request to one (gateway.ts decides which applies).
 */

/** `workflowId` names the running turn (a held one, #22, may run for hours) when it is known. */
export const inProgress = (workflowId?: string) =>
  conflict(
    'TURN_IN_PROGRESS',
    'Another turn of this conversation is running; retry when it has finished.',
    workflowId ? { workflowId } : undefined
  );

/**
 * The database says turn N is next, yet Temporal holds turn N completed: the conversation was pruned (its turn numbers
 * start again at 1), or the database was restored from an older backup. A completed turn's id is never reused (it
 * would answer a retried request with another turn's effects), so the id cannot go on; a new conversation can.
 */
export const retired = (input: TurnInput) =>
  messageRefusal(
    'CONVERSATION_RETIRED',
    `Conversation ${input.conversationId} cannot take turn ${input.turnNumber}: that turn already completed, and the ` +
      'conversation no longer holds it (pruned, or restored from an older backup). Start a new conversation.'
  );

/**
 * The turn's workflow id belongs to another deployment on the same Temporal namespace (another task queue): the
 * conversation id was used there too (a client sent it to both). Its turns cannot run here under that id.
 */
export const idTaken = (input: TurnInput) =>
  messageRefusal(
    'CONVERSATION_ID_TAKEN',
    `Conversation ${input.conversationId} cannot take turn ${input.turnNumber} here: another deployment on this ` +
      "Temporal namespace runs that conversation's turns. Start a new conversation."
  );

/**
 * The start of a turn that Temporal did not answer: the request may sit in a server that stopped answering and run
 * when it answers again, so the caller is told which turn it would be (a new conversation's id included), and how to
 * go on without running it twice. An Idempotency-Key's claim stays: the same request with that key attaches to the
 * turn if it started, and starts it if it did not.
 */
export const startUnanswered = (input: TurnInput) => {
  const { conversationId, turnNumber } = input;
  const next = input.idempotencyKey
    ? 'Send the same request with the same Idempotency-Key: it attaches to that turn if it started, and starts it if not.'
    : `Read the conversation (GET /api/v1/conversation/${conversationId}) before sending the message again, or ` +
      'send it with an Idempotency-Key, which makes a retry safe.';
  return new ApiError(
    503,
    'TEMPORAL_UNREACHABLE',
    `The Temporal server did not answer the start of turn ${turnNumber} of conversation ${conversationId}; it may ` +
      `still run that turn when it answers again. ${next}`,
    { conversationId, turnNumber, workflowId: input.turnId, turnStarted: 'unknown' }
  );
};

export const replyGone = (claim: TurnClaim) =>
  messageRefusal(
    'TURN_REPLY_GONE',
    `This request already ran as turn ${claim.turnNumber} of conversation ${claim.conversationId}, which completed; ` +
      'its reply is no longer kept. Read the conversation (GET /api/v1/conversation/{id}).'
  );

export const keyReused = () =>
  messageRefusal(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was already used with a different request (another body or conversation); use a new key for a new request.'
  );
