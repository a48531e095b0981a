import { MAX_FILTER_CODE_CHARS } from '../../../core/config/scope';
import { badRequest } from '../../errors';
import { badRequestResponse, unavailableResponse } from '../../error-responses';
import { CONSOLE_CONVERSATION_STATUSES, type ConversationCursor, type ConversationSearch } from '../../console/ports';
import { conversationPageSchema, conversationTurnsSchema } from '../../console/schemas';
import { inputsOf, route } from '../../openapi';
import { linkNextPage, pagedResponse } from '../../replies';
import { conversationIdParams, uuidParam } from '../../schemas/common';
import { onConversationNamed } from '../../sent-ids';
import { CONVERSATION_GONE, conversationGone } from '../conversation';
import { requireSafeText } from '../../text-check';
import { turnsWithWhatWasSaid } from '../../console/turn-list';
import { showParked } from '../../console/queries';
import { SEARCH_TIMEOUT_MS } from '../../console/conversation-search';
import type { ConsoleRoute } from './index';

/** Turns per page of a conversation's turns when the caller names no limit. */
const TURNS_PAGE = 50;

/**
 * An intent or state code to filter by (core/config/scope.ts isFilterCode, by which request logs show it): what config
 * validation takes as one (core/config/validation/scope-checks.ts), any text that is not blank (JavaScript's \s is
 * the whitespace trim() removes, and codes are compared trimmed) and not unsafe (checked by the handler, INVALID_TEXT, as config validation refuses it), so `straße_zustand` and
 * `istanbul_çıkış` too.
 */
const code = {
  type: 'string',
  maxLength: MAX_FILTER_CODE_CHARS,
  pattern: '\\S',
  description:
    'Compared upper-cased and trimmed, as the engine compares codes (JavaScript case mapping, whatever the ' +
    "database's locale): faq finds FAQ, STRASSE_ZUSTAND finds straße_zustand.",
} as const;
const searchQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: {
      type: 'string',
      maxLength: 200,
      description:
        "Text anywhere in the conversation's id, what its users typed or what its replies showed, case-insensitive. " +
        `A search that runs longer than ${SEARCH_TIMEOUT_MS / 1000} s is answered 503 SEARCH_TOO_SLOW: narrow it ` +
        '(a longer text, a filter).',
    },
    // Checked by the handler, so that any other value gets INVALID_STATUS naming the statuses there are.
    status: {
      type: 'string',
      description:
        `One of ${CONSOLE_CONVERSATION_STATUSES.join(', ')}: AWAITING_APPROVAL while a turn of it is parked on a tool ` +
        'approval, HELD while it holds a tool call for an operator (RUNNING and BLOCKED leave those out), BLOCKED ' +
        'when a ce_policy row refused the last turn.',
    },
    intent: code,
    state: code,
    limit: { type: 'string', pattern: '^(?:[1-9]|[1-9][0-9]|100)$' },
    after: {
      type: 'string',
      pattern: `^-?[0-9]{1,17}_${uuidParam.pattern.slice(1, -1)}$`,
      description:
        "The previous page's `next`: the conversations after it, in the same order. A conversation a turn moves " +
        'to the top while you page is on the first page again; no other repeats or goes missing.',
    },
  },
} as const;

/** A cursor as the API writes it: `<updated_at in microseconds since the epoch>_<conversation id>`. */
const cursorText = ({ updatedAtMicros, conversationId }: ConversationCursor) => `${updatedAtMicros}_${conversationId}`;

function cursorOf(text: string | undefined): ConversationCursor | undefined {
  if (text === undefined) return undefined;
  const [updatedAtMicros = '', conversationId = ''] = text.split('_');
  return { updatedAtMicros, conversationId };
}

/** GET conversations by id or text, status, intent and state: the console's way to a turn. */
export const conversationSearchRoute: ConsoleRoute = (app, _ports, consolePorts, docs) => {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/conversations',
      summary:
        'Conversations, newest activity first: search by id or text, filter by status, intent and state. ' +
        'Paged by cursor: `next` (and a `Link: <…>; rel="next"` header) names the next page.',
      schema: {
        querystring: searchQuery,
        response: {
          200: pagedResponse(conversationPageSchema),
          400: badRequestResponse(
            inputsOf({ querystring: searchQuery }),
            `INVALID_STATUS: \`status\` is not one of ${CONSOLE_CONVERSATION_STATUSES.join(', ')} (\`details.allowed\`)`
          ),
          503: unavailableResponse(
            `SEARCH_TOO_SLOW: the search (all its statements together) ran longer than ${SEARCH_TIMEOUT_MS / 1000} s ` +
              'and was stopped; narrow it (a longer text, a status, intent or state filter)'
          ),
        },
      },
    },
    async (request, reply) => {
      const { after, ...filters } = request.query as Record<string, string | undefined>;
      requireSafeText({ q: filters['q'], intent: filters['intent'], state: filters['state'] });
      const search: ConversationSearch = {
        q: filters['q'],
        status: statusFilter(filters['status']),
        intent: filters['intent'],
        state: filters['state'],
        limit: Number(filters['limit'] ?? 25),
        after: cursorOf(after),
      };
      const { items, total, totalCapped, next, parkedUnknown } = await consolePorts.searchConversations(search);
      const nextText = next && cursorText(next);
      if (nextText) {
        const query = { ...filters, limit: String(search.limit), after: nextText };
        linkNextPage(reply, '/api/v1/console/conversations', query);
      }
      return {
        items,
        total,
        ...(totalCapped && { totalCapped }),
        limit: search.limit,
        next: nextText,
        // awaitingApprovalUnknown is the same fact under its name from before HELD: kept for v1's clients.
        ...(parkedUnknown && { parkedStatusUnknown: true, awaitingApprovalUnknown: true }),
      };
    }
  );
};

const turnsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'string',
      pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$',
      description: `Turn numbers per page, 1 to 200; ${TURNS_PAGE} when not given.`,
    },
    after: {
      type: 'string',
      pattern: '^(?:0|[1-9][0-9]{0,8})$',
      description: "The previous page's `next` (a turn number): the turns after it, in turn order.",
    },
  },
} as const;

/** GET a conversation's turns, each with what was said in it, one page at a time. */
export const conversationTurnsRoute: ConsoleRoute = (app, ports, consolePorts, docs) => {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/conversations/:id/turns',
      summary:
        "A conversation's turn workflows (running and failed ones too) with what the user said, in turn order. " +
        `Paged by turn number: the turns numbered after \`after\`, \`limit\` numbers (default ${TURNS_PAGE}), read ` +
        "from Temporal's visibility a page at a time; a turn it no longer holds (past the namespace's retention) is " +
        'not listed, so a page may have fewer; a range holding none of them while later turns remain is skipped, so ' +
        'the page starts at the next turn held. `next` (and a `Link: <…>; rel="next"` header) names the next page, ' +
        'null when no turn follows.',
      schema: {
        params: conversationIdParams,
        querystring: turnsQuery,
        response: { 200: pagedResponse(conversationTurnsSchema), ...CONVERSATION_GONE },
      },
    },
    async (request, reply) =>
      onConversationNamed((request.params as { id: string }).id, async (id) => {
        const query = request.query as { limit?: string; after?: string };
        const limit = Number(query.limit ?? TURNS_PAGE);
        const conversation = await consolePorts.read(() => ports.conversations.conversation(id));
        if (!conversation) throw await consolePorts.read(() => conversationGone(ports, id));
        const after = Number(query.after ?? 0);
        const [{ turns: page, next: nextNumber }, parked] = await Promise.all([
          consolePorts.inspector.turns(id, { after, limit }),
          consolePorts.parked(id),
        ]);
        const turns = await turnsWithWhatWasSaid(consolePorts, id, page, conversation.history);
        const next = nextNumber === null ? null : String(nextNumber);
        if (next)
          linkNextPage(reply, `/api/v1/console/conversations/${id}/turns`, { limit: String(limit), after: next });
        const { history: _history, ...summary } = conversation;
        // The list's rule: a conversation parked on a person says so here too, not its row's RUNNING.
        return { conversation: showParked(summary, parked), turns, limit, next };
      })
  );
};

/** An unknown status would match no conversation, and the caller could not tell a typo from an empty list. */
function statusFilter(status: string | undefined): string | undefined {
  if (status === undefined || (CONSOLE_CONVERSATION_STATUSES as readonly string[]).includes(status)) return status;
  throw badRequest('INVALID_STATUS', `status must be one of ${CONSOLE_CONVERSATION_STATUSES.join(', ')}.`, {
    allowed: [...CONSOLE_CONVERSATION_STATUSES],
  });
}
