import type { FastifyReply } from 'fastify';
import { ErrorType, isErrorCode } from '../core/errors';
import { noteTurnAnswer } from '../observability/turn-metrics';
import { envelope } from './errors';
import { conversationRetired } from './message-refusals';
import type { TurnReply } from './ports';
import type { OpenTurnOutcome } from './schemas/turn';
import type { ReplyTexts } from './reply-texts';
import { OPERATOR_ENDED_TYPES } from './turns/ended-run';
import { TurnStatus } from '../workflows/turn-status';

/**
 * Names the next page of a paged list in a `Link: <path?query>; rel="next"` header (RFC 8288): `query` is the
 * request's own, its cursor moved past the page sent. No header: the page sent was the last.
 */
export function linkNextPage(reply: FastifyReply, path: string, query: Record<string, string | undefined>): void {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  reply.header('link', `<${path}?${params}>; rel="next"`);
}

/** The `Link` a paged list's 200 sends (linkNextPage), in Fastify's response-schema form as api/openapi.ts reads it. */
const NEXT_PAGE_HEADER = {
  Link: {
    description: 'When more follow: `<path?query>; rel="next"`, the next page (RFC 8288); absent on the last page.',
    required: false,
    schema: { type: 'string' },
  },
} as const;

/** A paged list's 200 `schema`, with the `Link` header that names its next page. */
export const pagedResponse = <S extends object>(schema: S) => ({ ...schema, headers: NEXT_PAGE_HEADER });

export function approvalUrl(conversationId: string, turnNumber: number): string {
  return `/api/v1/conversation/${conversationId}/turns/${turnNumber}/approval`;
}

/**
 * How to decide a pending approval: the 202's `approval.decideWith`, and GET /conversation/{id}'s. Its body is one the
 * route takes as it is (api/schemas/decisions.ts says the options): a reject, so that one posted unread refuses the
 * call instead of running it, and no reason or decider, which a client filling in only `decision` would record as
 * said.
 */
export function decideWith(conversationId: string, turnNumber: number, callIndex: number) {
  return { method: 'POST', url: approvalUrl(conversationId, turnNumber), body: { decision: 'reject', callIndex } };
}

/**
 * How to run a failed turn again, told with a retryable failure: the same request would only get its answer again.
 * The client's remedy is a new request; details.retryWith is an operator's (the admin route, which the gateway's
 * token does not reach when OPERATOR_API_TOKEN is set), named as such so that no gateway is sent where it gets 403.
 */
const RETRY_HOW =
  ' Nothing was committed. To run it again, send the request again with a new Idempotency-Key (the same key answers ' +
  'this failure again). An operator may instead re-run the turn with POST details.retryWith.url (operator token).';

/** Where an operator re-runs a failed turn: the admin route, labelled as the operator's in `access`. */
export const retryWith = (workflowId: string) =>
  ({ method: 'POST', url: `/api/v1/admin/turns/${workflowId}/retry`, access: 'operator' }) as const;

/**
 * An operator ended the turn in Temporal (cancel, terminate) before it committed (one ended after its commit answers
 * the reply it committed: turns/committed-reply.ts): on purpose, so no client should send it again, as a write tool
 * it called would run twice. 409: the request stands against a turn ended by hand, not a fault of ours (500) nor one a
 * retry mends (503).
 */
const OPERATOR_ENDED_HOW =
  ' An operator ended it in Temporal. Read the conversation (GET /api/v1/conversation/{id}) for where it stands; ' +
  'an operator re-runs it, if that is wanted, with POST details.retryWith.url.';

/** The status and message of a failed turn's answer: one rule for the POST, its replays and the retry route. */
function failureAnswer(turn: Extract<TurnReply, { kind: 'FAILED' }>, failureType: string) {
  if (OPERATOR_ENDED_TYPES.has(failureType)) {
    return { status: 409, message: `The turn was ended (${failureType}).${OPERATOR_ENDED_HOW}` };
  }
  const message = `The turn failed (${failureType}).${turn.retryable ? RETRY_HOW : ''}`;
  return { status: turn.retryable ? 503 : 500, message };
}

/**
 * Maps a turn outcome to the HTTP answer: 200 answered, 202 awaiting approval, held for an operator
 * (#22) or still running past the API's wait (the final reply comes on the SSE stream and
 * GET /conversation/{id}), 503 failed but retryable (a new request, or an operator's retryWith, may succeed), 500 failed, 409 ended
 * by an operator in Temporal (TURN_CANCELLED, TURN_TERMINATED). `text` is the end-user text for 202 and failures (see
 * reply-texts.ts).
 */
export async function sendTurnReply(reply: FastifyReply, turn: TurnReply, texts: ReplyTexts): Promise<FastifyReply> {
  const text = (await texts.textFor(turn)) ?? '';
  // Told once the text is in hand: a failure reading it answers 5xx, which counts as ERROR (turn-metrics.ts).
  noteTurnAnswer(reply, turn.kind);
  const ref = { workflowId: turn.ref.workflowId, runId: turn.ref.runId, number: turn.ref.turnNumber };
  if (turn.kind === 'COMPLETED') {
    const r = turn.result;
    return reply.status(200).send({
      success: true,
      conversationId: r.conversationId,
      intent: r.intent,
      state: r.state,
      payload: r.payload,
      context: r.context,
      turn: { ...ref, outcome: r.outcome },
    });
  }
  if (turn.kind === 'AWAITING_APPROVAL') {
    const p = turn.pending;
    return reply.status(202).send({
      ...accepted(turn, p, text, TurnStatus.AwaitingApproval),
      approval: {
        toolCode: p.toolCode,
        args: p.args,
        callIndex: p.callIndex,
        expiresAt: p.expiresAt,
        decideWith: decideWith(turn.ref.conversationId, turn.ref.turnNumber, p.callIndex),
      },
    });
  }
  if (turn.kind === 'HELD') {
    const h = turn.held;
    return reply.status(202).send({
      ...accepted(turn, h, text, TurnStatus.Held),
      held: { toolCode: h.toolCode, callIndex: h.callIndex, expiresAt: h.expiresAt },
    });
  }
  if (turn.kind === 'RUNNING') {
    // The turn goes on; its reply comes on the SSE stream and GET /conversation/{id}, as for HELD.
    return reply
      .status(202)
      .send({ ...accepted(turn, turn, text, TurnStatus.Running), running: { reason: turn.reason } });
  }
  const failureType = publicFailureType(turn.failureType);
  if (failureType === ErrorType.ConversationRetired) {
    // Erased (or pruned) as the turn started: it wrote nothing, and the client starts a new conversation, as the 410
    // the API itself answers a retired id says.
    const retired = conversationRetired(turn.ref.conversationId);
    return reply.status(retired.statusCode).send(envelope(retired.code, retired.message, ref));
  }
  const { status, message } = failureAnswer(turn, failureType);
  // No Retry-After: the failure is this request's final result, and the same request with the same Idempotency-Key
  // answers it again. A retry is a new request (a new key), or an operator's re-run of the turn (retryWith).
  return reply.status(status).send(
    envelope('TURN_FAILED', message, {
      ...ref,
      failureType,
      retryable: turn.retryable,
      userMessage: text,
      retryWith: retryWith(turn.ref.workflowId),
    })
  );
}

/** A failure type as clients see it: our codes as they are, an unexpected error's class name as INTERNAL. */
export function publicFailureType(type: string): string {
  return isErrorCode(type) ? type : 'INTERNAL';
}

/** The common body of a 202: the turn is still open, the text tells the user why. */
function accepted(turn: TurnReply, at: { intent: string; state: string }, text: string, outcome: OpenTurnOutcome) {
  return {
    success: true,
    conversationId: turn.ref.conversationId,
    intent: at.intent,
    state: at.state,
    payload: { type: 'TEXT', value: text },
    context: {},
    turn: { workflowId: turn.ref.workflowId, runId: turn.ref.runId, number: turn.ref.turnNumber, outcome },
  };
}
