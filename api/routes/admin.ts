import type { FastifyInstance } from 'fastify';
import { formatViolation, type ConfigViolation } from '../../core/config/types';
import { isEngineError } from '../../core/errors';
import { ApiError, refuseBlockedTurn } from '../errors';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';
import { sendTurnReply } from '../replies';
import { defaultReplyTexts } from '../reply-texts';
import {
  errorResponse,
  TURN_IN_PROGRESS_WHEN,
  TURN_NOT_FOUND_WHEN,
  turnReplyResponses,
  unavailableResponse,
  UNAVAILABLE_CODES,
} from '../error-responses';
import { RETIRED_WHEN } from '../message-refusals';
import { onTurnNamed, turnIdParams } from '../turns/turn-id';
import { conversationIdParams } from '../schemas/common';
import { onConversationNamed } from '../sent-ids';

/**
 * Retry and refresh act on the path alone. A body is optional, but a property in it is refused (400
 * VALIDATION_FAILED naming it) instead of ignored: a caller sending `{"force": true}` must not believe it was heard.
 */
const noBodyProperties = { type: 'object', nullable: true, additionalProperties: false, properties: {} } as const;

/** The admin routes: re-run a failed turn, and reload the config. */
export function adminRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  retryRoute(app, ports, docs);
  configRefreshRoute(app, ports, docs);
  eraseRoute(app, ports, docs);
}

const erasedCount = { type: 'integer', minimum: 0 } as const;

/** A yes/no query option, `true` or `false` as sent: the API coerces no query text (api/app.ts). */
const queryFlag = (description: string) => ({ type: 'string', enum: ['true', 'false'], description }) as const;

/** DELETE a conversation: a data subject's erasure (api/turns/erase.ts). */
function eraseRoute(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  const erase = ports.eraseConversation;
  if (!erase) return;
  route(
    app,
    docs,
    {
      method: 'DELETE',
      url: '/api/v1/admin/conversations/:id',
      summary:
        "Erase one conversation: every row naming it, the claim bodies only it stored, its turns' Temporal executions; " +
        'the id is retired. An id nothing names is 404 unless `retireUnknown`; an erased one again is 200.',
      schema: {
        params: conversationIdParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            terminate: queryFlag('Terminate a turn in flight first.'),
            retireUnknown: queryFlag(
              'Retire an id nothing names yet (a privacy request for a conversation that may arrive later) ' +
                'instead of answering 404.'
            ),
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['conversationId', 'rows', 'executionsDeleted', 'temporalRemaining'],
            properties: {
              conversationId: { type: 'string' },
              rows: {
                type: 'object',
                properties: Object.fromEntries(
                  ['conversations', 'auditRows', 'historyRows', 'llmCalls', 'turnRequests', 'claims', 'turns'].map(
                    (k) => [k, erasedCount]
                  )
                ),
              },
              executionsDeleted: erasedCount,
              temporalRemaining: {
                type: 'string',
                nullable: true,
                description: 'What Temporal still holds, and why: erase again once it answers.',
              },
            },
          },
          404: errorResponse(
            'CONVERSATION_NOT_FOUND: the id is not retired, no row names it and Temporal has no turn of it on this ' +
              "deployment's task queue; nothing was erased (`?retireUnknown=true` retires it all the same)"
          ),
          409: errorResponse('TURN_IN_PROGRESS: a turn is in flight; nothing was erased (`?terminate=true` ends it)'),
          503: unavailableResponse(
            'TEMPORAL_UNREACHABLE (also): a turn may be in flight, or the id names nothing in the database, and ' +
              'Temporal did not say; nothing was erased'
          ),
        },
      },
    },
    async (request) => {
      const sent = (request.params as { id: string }).id;
      const query = request.query as { terminate?: string; retireUnknown?: string };
      const [terminate, retireUnknown] = [query.terminate === 'true', query.retireUnknown === 'true'];
      return onConversationNamed(sent, async (conversationId) => ({
        conversationId: sent,
        ...(await erase({ conversationId, terminate, retireUnknown, erasedBy: 'api' })),
      }));
    }
  );
}

/** What a retry refuses with 409 (api/turns/gateway.ts retryTurn). */
const RETRY_CONFLICTS = [
  TURN_IN_PROGRESS_WHEN,
  'TURN_ALREADY_COMPLETED: the turn completed; there is nothing to re-run',
  'STALE_TURN: a later turn of the conversation committed since; the failed one cannot be re-run',
];

/** POST retry: the failed turn runs again with its original input, and answers as a message does. */
function retryRoute(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  route(
    app,
    docs,
    {
      method: 'POST',
      url: '/api/v1/admin/turns/:workflowId/retry',
      summary: 'Re-run a failed turn with its original input; write tools dedupe by idempotency key.',
      schema: {
        params: turnIdParams,
        body: noBodyProperties,
        response: {
          ...turnReplyResponses({ unavailable: [UNAVAILABLE_CODES.notReady], conflicts: RETRY_CONFLICTS }),
          404: errorResponse(TURN_NOT_FOUND_WHEN),
          410: errorResponse(`CONVERSATION_RETIRED: ${RETIRED_WHEN}`),
        },
      },
      turnRequest: true,
    },
    async (request, reply) => {
      const sent = (request.params as { workflowId: string }).workflowId;
      await refuseBlockedTurn(ports.readiness);
      const turn = await onTurnNamed(sent, (workflowId) => ports.turns.retryTurn(workflowId));
      return sendTurnReply(reply, turn, ports.replyTexts ?? defaultReplyTexts);
    }
  );
}

/** POST config refresh: the new config is served only when valid; otherwise 422 lists every violation. */
function configRefreshRoute(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  route(
    app,
    docs,
    {
      method: 'POST',
      url: '/api/v1/admin/config/refresh',
      summary: 'Reload ce_* config: validate and swap atomically, or refuse listing every violation.',
      schema: {
        body: noBodyProperties,
        response: {
          200: { type: 'object', properties: { version: { type: 'string' }, changed: { type: 'boolean' } } },
          422: errorResponse(
            'CONFIG_INVALID: the stored config has violations (`details.violations`, one line each) and is not ' +
              'served; the last valid config goes on'
          ),
        },
      },
    },
    async () => {
      try {
        return await ports.config.refresh();
      } catch (err) {
        throw isEngineError(err) && err.type === 'CONFIG_INVALID' ? configInvalid(err.details) : err;
      }
    }
  );
}

/** The 422 a refused refresh answers: the violations, each as one line, while the last valid config goes on. */
function configInvalid(details: Record<string, unknown> | undefined): ApiError {
  const violations = (details?.['violations'] ?? []) as ConfigViolation[];
  return new ApiError(
    422,
    'CONFIG_INVALID',
    'The config has violations and is not served; the newest valid config stored is.',
    {
      violations: violations.map(formatViolation),
    }
  );
}
