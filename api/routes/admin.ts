import type { FastifyInstance } from 'fastify';
import { formatViolation, type ConfigViolation } from '../../core/config/types';
import { isEngineError } from '../../core/errors';
import { ApiError } from '../errors';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';
import { sendTurnReply } from '../replies';
import { defaultReplyTexts } from '../reply-texts';
import { turnReplyResponses } from '../error-responses';
import { onTurnNamed, turnIdParam } from '../turns/turn-id';

/**
 * Retry and refresh act on the path alone. A body is optional, but a property in it is refused (400
 * VALIDATION_FAILED naming it) instead of ignored: a caller sending `{"force": true}` must not believe it was heard.
 */
const noBodyProperties = { type: 'object', nullable: true, additionalProperties: false, properties: {} } as const;

export function adminRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  route(
    app,
    docs,
    {
      method: 'POST',
      url: '/api/v1/admin/turns/:workflowId/retry',
      summary: 'Re-run a failed turn with its original input; write tools dedupe by idempotency key.',
      schema: {
        params: { type: 'object', required: ['workflowId'], properties: { workflowId: turnIdParam } },
        body: noBodyProperties,
        response: turnReplyResponses(),
      },
    },
    async (request, reply) => {
      const sent = (request.params as { workflowId: string }).workflowId;
      const turn = await onTurnNamed(sent, (workflowId) => ports.turns.retryTurn(workflowId));
      return sendTurnReply(reply, turn, ports.replyTexts ?? defaultReplyTexts);
    }
  );

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
        if (isEngineError(err) && err.type === 'CONFIG_INVALID') {
          const violations = (err.details?.['violations'] ?? []) as ConfigViolation[];
          throw new ApiError(
            422,
            'CONFIG_INVALID',
            'The config has violations and is not served; the newest valid config stored is.',
            {
              violations: violations.map(formatViolation),
            }
          );
        }
        throw err;
      }
    }
  );
}
