import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AuditPageBounds } from '../../core/audit';
import type { JsonObject } from '../../core/json';
import { namedApprovalProblem } from '../../core/turn/operator-decision';
import type { ApprovalDecisionInput } from '../../workflows/messages';
import { ConcurrencyLimit, type LimitMetrics, type LimitRefusal } from '../concurrency-limit';
import { notFound, refuseBlockedTurn, refuseMalformedDecision, type ApiError } from '../errors';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts, AuditRowView } from '../ports';
import { linkNextPage, pagedResponse, sendTurnReply } from '../replies';
import { defaultReplyTexts } from '../reply-texts';
import { requireSafeText } from '../text-check';
import { turnNumberParam } from '../turns/turn-id';
import { onConversationNamed } from '../sent-ids';
import { conversationIdParams, uuidParam } from '../schemas/common';
import { auditRowSchema, conversationSchema } from '../schemas/conversation';
import { approvalRequestSchema } from '../schemas/decisions';
import { messageRequestSchema } from '../schemas/turn';
import { APPROVAL_DECISION_REFUSALS } from '../decision-refusals';
import {
  CONVERSATION_NOT_FOUND_WHEN,
  errorResponse,
  TURN_IN_PROGRESS_WHEN,
  turnReplyResponses,
  UNAVAILABLE_CODES,
} from '../error-responses';
import {
  conversationRetired,
  IDEMPOTENCY_KEY_HEADER,
  idempotencyKeyOf,
  messageRefusal,
  messageRefusalResponses,
  RETIRED_WHEN,
} from '../message-refusals';

export interface ConversationRouteOptions {
  messageMaxBytes: number;
  inputParamsMaxBytes: number;
  /** POST /conversation/message requests answered at once (MESSAGE_MAX_CONCURRENT); one more gets 503. */
  messageMaxConcurrent: number;
  limitMetrics?: LimitMetrics | undefined;
}

/**
 * One message too many at once: 503 TOO_MANY_MESSAGES, before any work, and the client tries again in 2 s (a turn
 * takes about one), perhaps on another process. Each request in flight holds a socket until its turn answers: past the
 * open-files limit the process failed (config/open-files.ts).
 */
const MESSAGES_BUSY: LimitRefusal = {
  status: 503,
  code: 'TOO_MANY_MESSAGES',
  message: (running, max) =>
    `${running} messages are being answered by this API process (at most ${max}); send it again after Retry-After ` +
    'seconds.',
  retryAfterSeconds: 2,
};
const MESSAGES_BUSY_DOC =
  'TOO_MANY_MESSAGES: this API process answers MESSAGE_MAX_CONCURRENT messages already; nothing was started, send ' +
  'the request again after `Retry-After` seconds';

/**
 * One response's rows are bounded, in number and in bytes: a long conversation's trail (tool results included)
 * comes in pages, and a page of large rows ends early.
 */
const AUDIT_RESPONSE_MAX_ROWS = 5000;
export const AUDIT_RESPONSE_MAX_BYTES = 8 * 1024 * 1024;
const auditPageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { type: 'string', pattern: '^[0-9]{1,15}$' },
    limit: { type: 'string', pattern: '^(?:[1-9][0-9]{0,2}|[1-4][0-9]{3}|5000)$' },
  },
} as const;
const idempotencyHeader = { type: 'object', properties: { 'idempotency-key': IDEMPOTENCY_KEY_HEADER } } as const;

interface MessageBody {
  conversationId?: string;
  message: string;
  inputParams?: JsonObject;
  reset?: boolean;
}

/** A conversation's routes: send a message, read it and its audit trail, decide a parked approval. */
export function conversationRoutes(
  app: FastifyInstance,
  ports: ApiPorts,
  docs: OpenApiRegistry,
  opts: ConversationRouteOptions
): void {
  messageRoute(app, ports, docs, opts);
  conversationReadRoutes(app, ports, docs);
  approvalRoute(app, ports, docs);
}

/** POST a message: one turn, its workflow started or attached to, the reply (or a 202) as the turn ends. */
function messageRoute(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry, opts: ConversationRouteOptions) {
  const messages = new ConcurrencyLimit('messages', opts.messageMaxConcurrent, MESSAGES_BUSY, opts.limitMetrics);
  route(
    app,
    docs,
    {
      method: 'POST',
      url: '/api/v1/conversation/message',
      summary: 'Run one conversation turn (starts or attaches to its Temporal workflow).',
      schema: {
        body: messageRequestSchema,
        headers: idempotencyHeader,
        response: {
          ...turnReplyResponses({
            unavailable: [UNAVAILABLE_CODES.notReady, MESSAGES_BUSY_DOC],
            conflicts: [TURN_IN_PROGRESS_WHEN],
          }),
          ...messageRefusalResponses(),
        },
      },
      checkBeforeSchema: (request) => void idempotencyKeyOf(request),
      turnRequest: true,
    },
    async (request, reply) =>
      messages.run(reply, async () => {
        const body = request.body as MessageBody;
        requireSendableMessage(body, opts);
        await refuseBlockedTurn(ports.readiness);
        const key = idempotencyKeyOf(request);
        const send = (conversationId: string) =>
          ports.turns.sendMessage({
            conversationId,
            message: body.message,
            inputParams: body.inputParams ?? {},
            reset: body.reset ?? false,
            idempotencyKey: key,
            requestContext: {},
          });
        const turn = body.conversationId
          ? await onConversationNamed(body.conversationId, send)
          : await send(key !== null ? await ports.turns.keyedConversation(key) : randomUUID());
        return sendTurnReply(reply, turn, ports.replyTexts ?? defaultReplyTexts);
      })
  );
}

/** What the schema cannot say of a message: text PostgreSQL can store, sizes in UTF-8 bytes, not blank. */
function requireSendableMessage(body: MessageBody, opts: ConversationRouteOptions): void {
  requireSafeText({ message: body.message, inputParams: body.inputParams });
  if (Buffer.byteLength(body.message, 'utf8') > opts.messageMaxBytes) {
    throw messageRefusal('MESSAGE_TOO_LARGE', `message is larger than ${opts.messageMaxBytes} bytes.`);
  }
  if (body.inputParams && Buffer.byteLength(JSON.stringify(body.inputParams), 'utf8') > opts.inputParamsMaxBytes) {
    const limit = opts.inputParamsMaxBytes;
    throw messageRefusal('INPUT_PARAMS_TOO_LARGE', `inputParams is larger than ${limit} bytes as JSON.`);
  }
  if (body.message.trim() === '') throw messageRefusal('MESSAGE_BLANK', 'message must not be blank.');
}

/** GET a conversation, and its audit rows a page at a time. */
function conversationReadRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry) {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/conversation/:id',
      summary: 'The conversation: intent, state, context and history.',
      schema: { params: conversationIdParams, response: { 200: conversationSchema, ...CONVERSATION_GONE } },
    },
    async (request) => {
      const { id: sent } = request.params as { id: string };
      return onConversationNamed(sent, async (id) => {
        const conversation = await ports.conversations.conversation(id);
        if (!conversation) throw await conversationGone(ports, id);
        return conversation;
      });
    }
  );

  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/conversation/audit/:id',
      summary:
        `Audit rows of a conversation, oldest first: at most \`limit\` (default and most ${AUDIT_RESPONSE_MAX_ROWS}) ` +
        `after audit id \`after\`, and payloads of at most ${AUDIT_RESPONSE_MAX_BYTES} bytes as JSON (a page of large ` +
        'rows ends early; its first row comes whatever its size). When more follow, a ' +
        '`Link: <…?after=…&limit=…>; rel="next"` header names the next page.',
      schema: {
        params: conversationIdParams,
        querystring: auditPageQuery,
        response: { 200: pagedResponse({ type: 'array', items: auditRowSchema }), ...CONVERSATION_GONE },
      },
    },
    async (request, reply) =>
      onConversationNamed((request.params as { id: string }).id, async (id) => {
        const query = request.query as { after?: string; limit?: string };
        const limit = Number(query.limit ?? AUDIT_RESPONSE_MAX_ROWS);
        await requireConversation(ports, id);
        const bounds = { afterAuditId: Number(query.after ?? 0), limit, maxBytes: AUDIT_RESPONSE_MAX_BYTES };
        const { rows, more } = await auditPage(ports, id, { ...bounds, takeFirst: true });
        const last = rows.at(-1);
        if (more && last) {
          const next = { after: String(last.auditId), limit: String(limit) };
          linkNextPage(reply, `/api/v1/conversation/audit/${id}`, next);
        }
        return rows;
      })
  );
}

/** POST a person's decision on the tool call a turn is parked on (D16). */
function approvalRoute(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry) {
  route(
    app,
    docs,
    {
      method: 'POST',
      url: '/api/v1/conversation/:id/turns/:n/approval',
      summary:
        "Approve or reject the tool call a turn is waiting on; `callIndex` names it (the 202's `approval.callIndex`).",
      schema: {
        params: {
          type: 'object',
          required: ['id', 'n'],
          properties: { id: uuidParam, n: turnNumberParam },
        },
        body: approvalRequestSchema,
        response: {
          ...turnReplyResponses({
            unavailable: [UNAVAILABLE_CODES.workerUnavailable],
            conflicts: APPROVAL_DECISION_REFUSALS.conflicts,
          }),
          400: APPROVAL_DECISION_REFUSALS.badRequest,
          404: errorResponse(
            `${CONVERSATION_NOT_FOUND_WHEN}; TURN_NOT_FOUND: the conversation has no turn \`n\` on this deployment's ` +
              "task queue, or Temporal no longer holds it (past the namespace's retention)"
          ),
          410: CONVERSATION_GONE[410],
        },
      },
      // The decision's own codes (INVALID_DECISION, INVALID_CALL_INDEX, RESULT_NOT_ALLOWED…: api/decision-refusals.ts,
      // in the route's 400), as the turn's validator, the console and the CLI answer them, before the schema's
      // VALIDATION_FAILED; the schema still refuses any other unknown field.
      checkBeforeSchema: (request) => refuseMalformedDecision(namedApprovalProblem(request.body)),
      turnRequest: true,
    },
    async (request, reply) => {
      const { id: sent, n } = request.params as { id: string; n: string };
      const body = request.body as ApprovalDecisionInput;
      const decision = { ...body, reason: body.reason ?? null, decidedBy: body.decidedBy ?? 'api' };
      const turn = await onConversationNamed(sent, async (id) => {
        await requireConversation(ports, id);
        return ports.turns.decideApproval(id, Number(n), decision);
      });
      return sendTurnReply(reply, turn, ports.replyTexts ?? defaultReplyTexts);
    }
  );
}

/** The 404 and 410 of a route that reads a conversation by its id (requireConversation, conversationGone). */
export const CONVERSATION_GONE = {
  404: errorResponse(CONVERSATION_NOT_FOUND_WHEN),
  410: errorResponse(`CONVERSATION_RETIRED: ${RETIRED_WHEN}; an id never seen is 404`),
} as const;

/** 404 CONVERSATION_NOT_FOUND; in a route, onConversationNamed makes it quote the id as the client sent it. */
export const conversationNotFound = (id: string) => notFound('CONVERSATION_NOT_FOUND', `No conversation ${id}.`);

/** `id`: the canonical (lower-case) id onConversationNamed gives a route. */
export async function requireConversation(ports: ApiPorts, id: string): Promise<void> {
  if (!(await ports.conversations.conversation(id))) throw await conversationGone(ports, id);
}

/**
 * Why the conversation `id` has no row: 410 CONVERSATION_RETIRED when it was pruned or erased, as a message or a
 * turn's view answers it, else 404 CONVERSATION_NOT_FOUND.
 */
export async function conversationGone(ports: ApiPorts, id: string): Promise<ApiError> {
  return (await ports.conversations.retired(id)) ? conversationRetired(id) : conversationNotFound(id);
}

export interface AuditPage {
  rows: AuditRowView[];
  /** The payload bytes read (as JSON text), the row read only to know that more follow included. */
  bytes: number;
  more: boolean;
}

/**
 * Up to `limit` audit rows after `afterAuditId` and payloads of up to `maxBytes`, read in the port's pages, and
 * whether more follow: each read asks for no more than the rows and bytes still wanted, plus the one row that tells
 * whether more follow; the database measures the rows before it sends them, so no more than that is ever loaded.
 */
export async function auditPage(ports: ApiPorts, id: string, bounds: AuditPageBounds): Promise<AuditPage> {
  const rows: AuditRowView[] = [];
  let bytes = 0;
  for (;;) {
    const page = await ports.conversations.auditsWithin(id, {
      afterAuditId: rows.at(-1)?.auditId ?? bounds.afterAuditId,
      limit: bounds.limit - rows.length + 1,
      maxBytes: bounds.maxBytes - bytes,
      takeFirst: bounds.takeFirst && rows.length === 0,
    });
    rows.push(...page.rows);
    bytes += page.bytes;
    if (rows.length > bounds.limit) return { rows: rows.slice(0, bounds.limit), bytes, more: true };
    if (page.full || page.rows.length === 0) return { rows, bytes, more: page.full };
  }
}
