import type { FastifyRequest } from 'fastify';
import { MAX_INPUT_DEPTH } from '../core/text/unsafe-text';
import { BODY_REFUSAL_CODES, errorResponse } from './error-responses';
import { ApiError } from './errors';

/**
 * What POST /api/v1/conversation/message refuses of its own, by code: the status and when. The route and the turn
 * gateway build these errors from this table (messageRefusal), and the route's OpenAPI responses list it
 * (messageRefusalResponses), so a code cannot be answered without being documented. The codes any route with a
 * body answers (VALIDATION_FAILED, MALFORMED_BODY, INVALID_TEXT, …) are api/error-responses.ts's.
 */
export const MESSAGE_REFUSALS = {
  MESSAGE_BLANK: { status: 400, when: '`message` is empty or only whitespace' },
  TOO_DEEP: { status: 400, when: `\`inputParams\` nests deeper than ${MAX_INPUT_DEPTH} levels (\`details.field\`)` },
  IDEMPOTENCY_KEY_INVALID: {
    status: 400,
    when: 'the `Idempotency-Key` is not 1 to 200 printable ASCII characters (letters, digits, punctuation, inner spaces)',
  },
  IDEMPOTENCY_KEY_REPEATED: {
    status: 400,
    when: 'the request sends more than one `Idempotency-Key` header (they would be joined into another key)',
  },
  CONVERSATION_RETIRED: {
    status: 410,
    when:
      'the conversation was pruned or erased, or the database restored from an older backup while Temporal still ' +
      'holds its completed turns, whose ids are never reused: start a new conversation',
  },
  TURN_REPLY_GONE: {
    status: 410,
    when: "the `Idempotency-Key`'s turn completed and is past Temporal's retention: it is not run again",
  },
  MESSAGE_TOO_LARGE: { status: 413, when: '`message` is over MESSAGE_MAX_BYTES in UTF-8' },
  INPUT_PARAMS_TOO_LARGE: { status: 413, when: '`inputParams` is over INPUT_PARAMS_MAX_BYTES as JSON' },
  BODY_TOO_LARGE: { status: 413, when: 'the body is over the API’s body limit' },
  CONVERSATION_ID_TAKEN: {
    status: 422,
    when:
      "the conversation's turn id is a workflow of another deployment on the same Temporal namespace (another task " +
      'queue; the client sent this `conversationId` there too): start a new conversation',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    when: 'the `Idempotency-Key` was used with another body or in another conversation: use a new key',
  },
} as const;

export type MessageRefusalCode = keyof typeof MESSAGE_REFUSALS;

/** What CONVERSATION_RETIRED means on a route that reads or re-runs a turn of a conversation. */
export const RETIRED_WHEN = 'the conversation was pruned or erased: its turns are not shown or run again';

/** 410 CONVERSATION_RETIRED for a conversation pruned or erased (ce_retired_conversation). */
export const conversationRetired = (conversationId: string) =>
  messageRefusal(
    'CONVERSATION_RETIRED',
    `Conversation ${conversationId} was pruned or erased: its turns are not shown or run again. Start a new conversation.`
  );

/** The refusal `code`, with the status the table gives it. */
export function messageRefusal(code: MessageRefusalCode, message: string, details?: Record<string, unknown>): ApiError {
  return new ApiError(MESSAGE_REFUSALS[code].status, code, message, details);
}

/** The route's refusals as OpenAPI responses, one per status; its 400 also names what any body may get. */
export function messageRefusalResponses(): Record<number, ReturnType<typeof errorResponse>> {
  const byStatus = new Map<number, string[]>([[400, [...BODY_REFUSAL_CODES]]]);
  for (const [code, { status, when }] of Object.entries(MESSAGE_REFUSALS)) {
    byStatus.set(status, [...(byStatus.get(status) ?? []), `${code}: ${when}`]);
  }
  return Object.fromEntries([...byStatus].map(([status, lines]) => [status, errorResponse(lines.join('; '))]));
}

/** Printable ASCII, no space at either end (HTTP strips those): what a key may be. */
const KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,198}[\x21-\x7e])?$/;

/**
 * The header's documentation, in the route's header schema: its pattern is the one idempotencyKeyOf checks, before
 * the schema, so a key it refuses gets IDEMPOTENCY_KEY_INVALID, not the schema's VALIDATION_FAILED.
 */
export const IDEMPOTENCY_KEY_HEADER = {
  type: 'string',
  pattern: KEY.source,
  description:
    'Names this request across the API (make it unguessable: a UUID). The same request with the same key attaches ' +
    'to the turn the first one started, or answers its result again, instead of running a second turn; on a first ' +
    'message without `conversationId` it also names the conversation. 1 to 200 printable ASCII characters, sent once.',
} as const;

/**
 * The request's Idempotency-Key, or null without one. Node joins repeated headers with ", ", which would make two
 * keys a third; a key of other bytes (Latin-1, controls) reads differently to each client library that sends it.
 */
export function idempotencyKeyOf(request: FastifyRequest): string | null {
  const { rawHeaders } = request.raw;
  let sent = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === 'idempotency-key') sent += 1;
  if (sent > 1) throw messageRefusal('IDEMPOTENCY_KEY_REPEATED', 'Send one Idempotency-Key header, not several.');
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string') return null;
  if (!KEY.test(key)) {
    throw messageRefusal(
      'IDEMPOTENCY_KEY_INVALID',
      'The Idempotency-Key must be 1 to 200 printable ASCII characters (a UUID is a good key).'
    );
  }
  return key;
}
