import type { FastifyInstance } from 'fastify';
import { CONFIG_VERSION_PATTERN, WhatifInputError } from '../../activities/whatif/draft';
import { WhatifCannotRunError } from '../../activities/whatif/scratch';
import { countByStatus } from '../../core/whatif/diff';
import { busyResponse, ConcurrencyLimit, type LimitMetrics, type LimitRefusal } from '../concurrency-limit';
import { ApiError, badRequest, notFound } from '../errors';
import { badRequestResponse, errorResponse, unavailableResponse } from '../error-responses';
import { inputsOf, route, type OpenApiRegistry } from '../openapi';
import type { WhatifQueries } from '../ports';
import { uuidParam } from '../schemas/common';
import { onConversationNamed } from '../sent-ids';

const factsSchema = {
  type: 'object',
  properties: {
    intent: { type: 'string', nullable: true },
    state: { type: 'string', nullable: true },
    rulesFired: { type: 'array', items: { type: 'string' } },
    toolsCalled: { type: 'array', items: { type: 'string' } },
    response: { type: 'string', nullable: true },
    approvals: { type: 'array', items: { type: 'string' } },
    error: { type: 'string', nullable: true },
  },
} as const;

const turnDiffSchema = {
  type: 'object',
  properties: {
    turnNumber: { type: 'integer' },
    userText: { type: 'string' },
    status: {
      type: 'string',
      enum: ['same', 'changed', 'needs-model', 'needs-tool', 'needs-approval', 'needs-operator', 'skipped'],
    },
    changes: {
      type: 'array',
      description:
        'The fields that differ, recorded → replayed. Empty for a "needs-…" turn: past the question it could not ' +
        'answer the replay went on as the draft would not, so nothing after it is a change.',
      items: { type: 'object', properties: { field: { type: 'string' }, recorded: {}, replayed: {} } },
    },
    missing: {
      type: 'array',
      description: 'What a "needs-…" turn asked that was never recorded; empty otherwise.',
      items: { type: 'object', properties: { kind: { type: 'string' }, what: { type: 'string' } } },
    },
    recorded: factsSchema,
    replayed: {
      ...factsSchema,
      nullable: true,
      description:
        'Null for a skipped turn. For a "needs-…" turn, where the replay ended after refusing the unrecorded ' +
        'question (no model answer, an approval taken as rejected): not a prediction.',
    },
    superseded: {
      type: 'array',
      items: { type: 'string' },
      description:
        'Messages that failed under this turn number before this one took it (a failed turn commits nothing): not ' +
        'replayed. Absent when there were none.',
    },
  },
} as const;

/**
 * A replay runs every recorded turn in this process, on a database connection it holds throughout, so the
 * API bounds both how many run at once and how long a conversation one may replay: operators' what-ifs
 * must not take the connections and CPU that end users' turns need.
 */
export interface WhatifLimits {
  concurrency: number;
  maxTurns: number;
}

/** One replay too many at once: the caller is told to wait about one replay of a long conversation. */
const REPLAYS_BUSY: LimitRefusal = {
  code: 'WHATIF_BUSY',
  message: (running, max) => `${running} what-if replays are already running here (at most ${max}); try again shortly.`,
  retryAfterSeconds: 5,
};

function toApiError(err: WhatifInputError): ApiError {
  switch (err.code) {
    case 'CONVERSATION_NOT_FOUND':
    case 'CONFIG_VERSION_NOT_FOUND':
      return notFound(err.code, err.message);
    case 'CONVERSATION_RETIRED':
      return new ApiError(410, err.code, err.message);
    case 'CONVERSATION_TOO_LONG':
      return new ApiError(422, err.code, err.message);
    default:
      return badRequest(err.code, err.message);
  }
}

/** The route's query: the conversation to replay and the config version (or "current") to replay it against. */
interface WhatifQuery {
  conversation: string;
  config: string;
}

const whatifQuery = {
  type: 'object',
  required: ['conversation', 'config'],
  additionalProperties: false,
  properties: { conversation: uuidParam, config: { type: 'string', pattern: CONFIG_VERSION_PATTERN.source } },
} as const;

const whatifRoute = {
  method: 'GET',
  url: '/api/v1/whatif',
  summary:
    'Replays a recorded conversation against a stored config version (or "current") from recordings only, ' +
    'writing nothing, and returns per turn what changes: intent, state, rules, tools, response, approvals. ' +
    'Bounded per API process: 429 WHATIF_BUSY (with Retry-After) beyond WHATIF_CONCURRENCY replays at once, ' +
    '422 CONVERSATION_TOO_LONG beyond WHATIF_MAX_TURNS recorded turns.',
  schema: {
    querystring: whatifQuery,
    response: {
      200: {
        type: 'object',
        properties: {
          conversationId: { type: 'string' },
          config: { type: 'object', properties: { version: { type: 'string' } } },
          differs: { type: 'boolean' },
          summary: { type: 'object', additionalProperties: { type: 'integer' } },
          turns: { type: 'array', items: turnDiffSchema },
        },
      },
      400: badRequestResponse(
        inputsOf({ querystring: whatifQuery }),
        'CONFIG_INVALID: the config version replayed against has violations (the message counts and shows them)',
        'BAD_REQUEST: the conversation id or config version is not of its form'
      ),
      404: errorResponse(
        'CONVERSATION_NOT_FOUND: no conversation has this id, or it has no recorded turn; CONFIG_VERSION_NOT_FOUND: ' +
          'no config version of this id is stored'
      ),
      410: errorResponse('CONVERSATION_RETIRED: the conversation was pruned or erased; its recorded turns are gone'),
      422: errorResponse('CONVERSATION_TOO_LONG: the conversation has more than WHATIF_MAX_TURNS recorded turns'),
      ...busyResponse(REPLAYS_BUSY, 'WHATIF_CONCURRENCY replays run in this API process already; nothing was replayed'),
      503: unavailableResponse(
        "WHATIF_CANNOT_RUN: the database refused the replay's own (rolled-back) writes, whatever the config: a hot " +
          'standby or read-only transaction, a login that may only read, a server short of disk; the message names ' +
          'the SQLSTATE'
      ),
    },
  },
} as const;

/** `GET /api/v1/whatif`: one conversation's what-if replay (see docs/whatif.md), for the console's side-by-side view. */
export function whatifRoutes(
  app: FastifyInstance,
  whatif: WhatifQueries,
  docs: OpenApiRegistry,
  limits: WhatifLimits,
  limitMetrics?: LimitMetrics
): void {
  const replays = new ConcurrencyLimit('whatif', limits.concurrency, REPLAYS_BUSY, limitMetrics);
  route(app, docs, whatifRoute, async (request, reply) => {
    const query = request.query as WhatifQuery;
    return replays.run(reply, () =>
      onConversationNamed(query.conversation, (conversationId) =>
        replayConversation(whatif, conversationId, query.config, limits.maxTurns)
      )
    );
  });
}

/** The route's answer: the replay's turns, whether any differs, and how many turns have each status. */
async function replayConversation(whatif: WhatifQueries, conversationId: string, config: string, maxTurns: number) {
  try {
    const result = await whatif.conversation(conversationId, config, { maxTurns });
    const report = { config: { version: result.configVersion, source: config }, conversations: [result] };
    return {
      conversationId: result.conversationId,
      config: { version: result.configVersion },
      differs: result.turns.some((t) => t.status !== 'same'),
      summary: countByStatus(report),
      turns: result.turns,
    };
  } catch (err) {
    if (err instanceof WhatifCannotRunError) throw new ApiError(503, 'WHATIF_CANNOT_RUN', err.message);
    throw err instanceof WhatifInputError ? toApiError(err) : err;
  }
}
