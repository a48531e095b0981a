import { CONVERSATION_STATUSES } from '../../../core/session';
import { badRequest, notFound } from '../../errors';
import type { ConversationSearch } from '../../console/ports';
import { conversationPageSchema, conversationTurnsSchema } from '../../console/schemas';
import { route } from '../../openapi';
import { uuidParam } from '../../schemas';
import { requireSafeText } from '../../text-check';
import { auditedUserInput } from './turn';
import type { ConsoleRoute } from './index';

const code = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$' } as const;
const searchQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 200 },
    // Checked by the handler, so that any other value gets INVALID_STATUS naming the statuses there are.
    status: {
      type: 'string',
      description: `One of ${CONVERSATION_STATUSES.join(', ')}: BLOCKED when a ce_policy row refused the last turn.`,
    },
    intent: code,
    state: code,
    limit: { type: 'string', pattern: '^(?:[1-9]|[1-9][0-9]|100)$' },
    offset: { type: 'string', pattern: '^[0-9]{1,6}$' },
  },
} as const;

/** GET conversations by id or text, status, intent and state: the console's way to a turn. */
export const conversationSearchRoute: ConsoleRoute = (app, _ports, consolePorts, docs) => {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/conversations',
      summary: 'Conversations, newest first: search by id or text, filter by status, intent and state.',
      schema: { querystring: searchQuery, response: { 200: conversationPageSchema } },
    },
    async (request) => {
      const query = request.query as Record<string, string | undefined>;
      requireSafeText({ q: query['q'] });
      const search: ConversationSearch = {
        q: query['q'],
        status: statusFilter(query['status']),
        intent: query['intent'],
        state: query['state'],
        limit: Number(query['limit'] ?? 25),
        offset: Number(query['offset'] ?? 0),
      };
      return { ...(await consolePorts.searchConversations(search)), limit: search.limit, offset: search.offset };
    }
  );
};

/** GET a conversation's turns, each with what was said in it. */
export const conversationTurnsRoute: ConsoleRoute = (app, ports, consolePorts, docs) => {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/conversations/:id/turns',
      summary: "A conversation's turn workflows (running and failed ones too) with what the user said.",
      schema: {
        params: { type: 'object', required: ['id'], properties: { id: uuidParam } },
        response: { 200: conversationTurnsSchema },
      },
    },
    async (request) => {
      const id = (request.params as { id: string }).id.toLowerCase();
      const conversation = await ports.conversations.conversation(id);
      if (!conversation) throw notFound('CONVERSATION_NOT_FOUND', `No conversation ${id}.`);
      const said = new Map(conversation.history.map((h) => [h.turnNumber, h]));
      // A turn the history does not hold yet (running, parked on an operator, failed): its USER_INPUT row says it.
      const turns = await Promise.all(
        (await consolePorts.inspector.turns(id)).map(async (t) => ({
          ...t,
          userInput:
            said.get(t.turnNumber)?.userInput ?? auditedUserInput(await consolePorts.turnAudits(id, t.turnNumber)),
          assistantOutput: said.get(t.turnNumber)?.assistantOutput ?? null,
        }))
      );
      const { history: _history, ...summary } = conversation;
      return { conversation: summary, turns };
    }
  );
};

/** An unknown status would match no conversation, and the caller could not tell a typo from an empty list. */
function statusFilter(status: string | undefined): string | undefined {
  if (status === undefined || (CONVERSATION_STATUSES as readonly string[]).includes(status)) return status;
  throw badRequest('INVALID_STATUS', `status must be one of ${CONVERSATION_STATUSES.join(', ')}.`, {
    allowed: [...CONVERSATION_STATUSES],
  });
}
