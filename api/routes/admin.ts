import type { FastifyInstance } from 'fastify';
import { formatViolation, type ConfigViolation } from '../../core/config/types';
import { isEngineError } from '../../core/errors';
import { ApiError, refuseBlockedTurn } from '../errors';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';
import { sendTurnReply } from '../replies';
import { defaultReplyTexts } from '../reply-texts';
import { errorResponse, turnReplyResponses, UNAVAILABLE_CODES } from '../error-responses';
import { RETIRED_WHEN } from '../message-refusals';
import { onTurnNamed, turnIdParams } from '../turns/turn-id';

/**
 * Retry and refresh act on the path alone. A body is optional, but a property in it is refused (400
 * VALIDATION_FAILED naming it) instead of ignored: a caller sending `{"force": true}` must not believe it was heard.
 */
const noBodyProperties = { type: 'object', nullable: true, additionalProperties: false, properties: {} } as const;

/** The admin routes: re-run a failed turn, and reload the config. */
export function adminRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  retryRoute(app, ports, docs);
  configRefreshRoute(app, ports, docs);
}

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
          ...turnReplyResponses(UNAVAILABLE_CODES.notReady),
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
