import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { CONVERSATION_STATUSES } from '../../core/session';
import { badRequest, notFound } from '../errors';
import { CONSOLE_ACTIONS, type ActionBody } from '../console/actions';
import type { ConsolePorts, ConversationSearch } from '../console/ports';
import {
  actionAnswerSchema,
  consoleMetaSchema,
  conversationPageSchema,
  conversationTurnsSchema,
  turnViewSchema,
} from '../console/schemas';
import { turnStory } from '../history/turn-story';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';
import { decisionFieldSchemas, errorSchema, turnResponseSchema, uuidParam } from '../schemas';
import { requireSafeText } from '../text-check';
import { canonicalTurnId, parseTurnId } from '../turns/turn-id';

const code = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$' } as const;
const turnParams = {
  type: 'object',
  required: ['workflowId'],
  properties: { workflowId: { type: 'string', pattern: '^turn-[0-9a-fA-F-]{36}-[1-9][0-9]{0,8}$' } },
} as const;
const searchQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 200 },
    // Checked by the handler, so that any other value gets INVALID_STATUS naming the statuses there are.
    status: { type: 'string', description: `One of ${CONVERSATION_STATUSES.join(', ')}.` },
    intent: code,
    state: code,
    limit: { type: 'string', pattern: '^(?:[1-9]|[1-9][0-9]|100)$' },
    offset: { type: 'string', pattern: '^[0-9]{1,6}$' },
  },
} as const;

/** The turn console's API: conversations, a turn's story from its event history, and audited SRE actions. */
export function consoleRoutes(
  app: FastifyInstance,
  ports: ApiPorts,
  consolePorts: ConsolePorts,
  docs: OpenApiRegistry
) {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/meta',
      summary: 'What the console can do here: actions, Temporal UI link.',
      schema: { response: { 200: consoleMetaSchema, '4xx': errorSchema } },
    },
    async () => ({
      temporalUi: consolePorts.temporalUi,
      actions: CONSOLE_ACTIONS.map(({ name, summary }) => ({ name, summary })),
    })
  );

  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/conversations',
      summary: 'Conversations, newest first: search by id or text, filter by status, intent and state.',
      schema: { querystring: searchQuery, response: { 200: conversationPageSchema, '4xx': errorSchema } },
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

  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/conversations/:id/turns',
      summary: "A conversation's turn workflows (running and failed ones too) with what the user said.",
      schema: {
        params: { type: 'object', required: ['id'], properties: { id: uuidParam } },
        response: { 200: conversationTurnsSchema, '4xx': errorSchema },
      },
    },
    async (request) => {
      const id = (request.params as { id: string }).id.toLowerCase();
      const conversation = await ports.conversations.conversation(id);
      if (!conversation) throw notFound('CONVERSATION_NOT_FOUND', `No conversation ${id}.`);
      const said = new Map(conversation.history.map((h) => [h.turnNumber, h]));
      const turns = (await consolePorts.inspector.turns(id)).map((t) => ({
        ...t,
        userInput: said.get(t.turnNumber)?.userInput ?? null,
        assistantOutput: said.get(t.turnNumber)?.assistantOutput ?? null,
      }));
      const { history: _history, ...summary } = conversation;
      return { conversation: summary, turns };
    }
  );

  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/turns/:workflowId',
      summary: "A turn's story: every step from its event history, decisions, approvals, audit rows, response.",
      schema: { params: turnParams, response: { 200: turnViewSchema, '4xx': errorSchema } },
    },
    async (request) =>
      turnView(ports, consolePorts, canonicalTurnId((request.params as { workflowId: string }).workflowId))
  );

  route(
    app,
    docs,
    {
      method: 'POST',
      url: '/api/v1/console/turns/:workflowId/actions/:action',
      summary: 'An SRE action on a turn (retry, approve/reject, activity-reset/pause/unpause, held-*); audited.',
      schema: {
        params: {
          type: 'object',
          required: ['workflowId', 'action'],
          properties: {
            ...turnParams.properties,
            action: { type: 'string', enum: CONSOLE_ACTIONS.map((a) => a.name) },
          },
        },
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            activityId: { type: 'string', minLength: 1, maxLength: 200 },
            ...decisionFieldSchemas,
          },
        },
        response: { 200: actionAnswerSchema, 202: turnResponseSchema, '4xx': errorSchema, '5xx': errorSchema },
      },
    },
    async (request, reply) => {
      const params = request.params as { workflowId: string; action: string };
      const { action: name } = params;
      const workflowId = canonicalTurnId(params.workflowId);
      const body = (request.body ?? {}) as ActionBody;
      requireSafeText({ reason: body.reason, activityId: body.activityId, result: body.result });
      const action = CONSOLE_ACTIONS.find((a) => a.name === name);
      if (!action) throw notFound('ACTION_NOT_FOUND', `No console action ${name}.`);
      const { conversationId, turnNumber } = parseTurnId(workflowId);
      // The OPERATOR_ACTION row needs its conversation; an unknown one is the caller's mistake, not a 500.
      if (!(await ports.conversations.conversation(conversationId))) {
        throw notFound('TURN_NOT_FOUND', `No turn ${workflowId}.`);
      }
      // The row's key is ours, not the caller's X-Request-Id: a reused request id must not rewrite another action's row.
      const record = { workflowId, conversationId, turnNumber, actionId: randomUUID() };
      const payload = { action: name, source: 'console', requestId: request.id, ...body };
      await consolePorts.recordAction({ ...record, payload: { ...payload, result: 'STARTED' } });
      try {
        const answer = await action.run({
          workflowId,
          conversationId,
          turnNumber,
          body,
          api: ports,
          console: consolePorts,
          reply,
        });
        await consolePorts.recordAction({
          ...record,
          payload: { ...payload, result: 'DONE', httpStatus: reply.statusCode },
        });
        return answer;
      } catch (err) {
        const failure = err instanceof Error ? ('code' in err && String(err.code)) || err.name : 'ERROR';
        await consolePorts.recordAction({ ...record, payload: { ...payload, result: 'FAILED', failure } });
        throw err;
      }
    }
  );
}

/** An unknown status would match no conversation, and the caller could not tell a typo from an empty list. */
function statusFilter(status: string | undefined): string | undefined {
  if (status === undefined || (CONVERSATION_STATUSES as readonly string[]).includes(status)) return status;
  throw badRequest('INVALID_STATUS', `status must be one of ${CONVERSATION_STATUSES.join(', ')}.`, {
    allowed: [...CONVERSATION_STATUSES],
  });
}

async function turnView(ports: ApiPorts, consolePorts: ConsolePorts, workflowId: string) {
  const { conversationId, turnNumber } = parseTurnId(workflowId);
  const events = await consolePorts.inspector.history(workflowId);
  if (!events) throw notFound('TURN_NOT_FOUND', `No turn ${workflowId}.`);
  const story = turnStory(events);
  const running = story.status === 'RUNNING';
  const outcome = running ? story.searchAttributes['TurnOutcome'] : null;
  const [audits, pendingActivities, pendingApproval, heldTool, conversation] = await Promise.all([
    consolePorts.turnAudits(conversationId, turnNumber),
    running ? consolePorts.inspector.pendingActivities(workflowId) : [],
    outcome === 'AWAITING_APPROVAL' ? consolePorts.inspector.pendingApproval(workflowId) : null,
    outcome === 'HELD' ? consolePorts.inspector.heldTool(workflowId) : null,
    ports.conversations.conversation(conversationId),
  ]);
  const said = conversation?.history.find((h) => h.turnNumber === turnNumber);
  const userInput = said?.userInput ?? audits.find((a) => a.stage === 'USER_INPUT')?.payload['text'] ?? null;
  const output = audits.filter((a) => a.stage === 'ASSISTANT_OUTPUT').at(-1)?.payload['output'];
  const ui = consolePorts.temporalUi;
  return {
    workflowId,
    conversationId,
    turnNumber,
    userInput,
    response: said?.assistantOutput ?? output ?? null,
    story,
    audits,
    pendingActivities,
    pendingApproval,
    heldTool,
    temporalUiUrl: ui
      ? `${ui.url.replace(/\/$/, '')}/namespaces/${encodeURIComponent(ui.namespace)}/workflows/${workflowId}`
      : null,
  };
}
