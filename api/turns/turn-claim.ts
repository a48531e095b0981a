import { createHash } from 'node:crypto';
import type { TurnInput } from '../../core/turn/contracts';
import { canonicalJson } from '../../core/json';
import type { TurnClaim } from '../../db/repositories/turn-request';
import type { TurnRef, TurnRequest } from '../ports';

/*
 * A message's claim on its turn under its Idempotency-Key (db/repositories/turn-request.ts), and the refs that name
 * the turn a claim or an input is for.
 */

/** What makes two requests "the same" for an idempotency key: the body the client sent. */
export function requestHash(request: TurnRequest): string {
  const body = canonicalJson({ message: request.message, inputParams: request.inputParams, reset: request.reset });
  return createHash('sha256').update(body).digest('hex');
}

/** The claim `input`'s turn makes for its request's key (the key and hash are the request's). */
export function claimOf(input: TurnInput): Omit<TurnClaim, 'idempotencyKey' | 'requestHash'> {
  return { conversationId: input.conversationId, turnNumber: input.turnNumber, workflowId: input.turnId };
}

/** The turn a claim names, but for its run, which Temporal gives. */
export function refBase(claim: TurnClaim): Omit<TurnRef, 'runId'> {
  return { conversationId: claim.conversationId, turnNumber: claim.turnNumber, workflowId: claim.workflowId };
}

/** The turn `input` starts, run `runId`. */
export function refOf(input: TurnInput, runId: string): TurnRef {
  return { conversationId: input.conversationId, turnNumber: input.turnNumber, workflowId: input.turnId, runId };
}
