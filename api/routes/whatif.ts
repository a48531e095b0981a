import type { FastifyInstance } from 'fastify';
import { CONFIG_VERSION_PATTERN, WhatifInputError } from '../../activities/whatif/draft';
import { countByStatus } from '../../core/whatif/diff';
import { badRequest, notFound } from '../errors';
import { route, type OpenApiRegistry } from '../openapi';
import type { WhatifQueries } from '../ports';
import { errorSchema, uuidParam } from '../schemas';

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
    status: { type: 'string', enum: ['same', 'changed', 'needs-model', 'needs-tool', 'needs-approval', 'skipped'] },
    changes: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: 'string' }, recorded: {}, replayed: {} } },
    },
    missing: {
      type: 'array',
      items: { type: 'object', properties: { kind: { type: 'string' }, what: { type: 'string' } } },
    },
    recorded: factsSchema,
    replayed: { ...factsSchema, nullable: true },
  },
} as const;

/** `GET /api/v1/whatif`: one conversation's what-if replay (see docs/whatif.md), for the console's side-by-side view. */
export function whatifRoutes(app: FastifyInstance, whatif: WhatifQueries, docs: OpenApiRegistry): void {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/whatif',
      summary:
        'Replays a recorded conversation against a stored config version (or "current") from recordings only, ' +
        'writing nothing, and returns per turn what changes: intent, state, rules, tools, response, approvals.',
      schema: {
        querystring: {
          type: 'object',
          required: ['conversation', 'config'],
          additionalProperties: false,
          properties: { conversation: uuidParam, config: { type: 'string', pattern: CONFIG_VERSION_PATTERN.source } },
        },
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
          '4xx': errorSchema,
        },
      },
    },
    async (request) => {
      const query = request.query as { conversation: string; config: string };
      try {
        const result = await whatif.conversation(query.conversation.toLowerCase(), query.config);
        const report = { config: { version: result.configVersion, source: query.config }, conversations: [result] };
        return {
          conversationId: result.conversationId,
          config: { version: result.configVersion },
          differs: result.turns.some((t) => t.status !== 'same'),
          summary: countByStatus(report),
          turns: result.turns,
        };
      } catch (err) {
        if (!(err instanceof WhatifInputError)) throw err;
        if (err.code === 'CONVERSATION_NOT_FOUND' || err.code === 'CONFIG_VERSION_NOT_FOUND')
          throw notFound(err.code, err.message);
        throw badRequest(err.code, err.message);
      }
    }
  );
}
