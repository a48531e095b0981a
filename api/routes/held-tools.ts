import type { FastifyInstance } from 'fastify';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';
import { errorSchema, heldToolAckSchema, heldTurnsSchema } from '../schemas';
import { requireSafeText } from '../text-check';
import { canonicalTurnId } from '../turns/turn-id';
import type { HeldToolDecisionInput } from '../../workflows/messages';

const workflowIdParams = {
  type: 'object',
  required: ['workflowId'],
  properties: { workflowId: { type: 'string', pattern: '^turn-[0-9a-fA-F-]{36}-[0-9]+$' } },
} as const;

const decisionSchema = {
  type: 'object',
  required: ['action'],
  additionalProperties: false,
  properties: {
    action: { type: 'string', enum: ['retry', 'skip', 'fail', 'markDone'] },
    reason: { type: 'string', maxLength: 2000 },
    decidedBy: { type: 'string', minLength: 1, maxLength: 200 },
    // 0 is a request's direct tool call (runbook §6), planner calls count from 1.
    callIndex: { type: 'integer', minimum: 0 },
    result: { description: 'markDone only, required: the result verified upstream (any JSON).' },
  },
} as const;

/**
 * #22: the operator's side of held tool calls, behind the API token like every route: list the
 * held turns, and resolve one. The turn's final reply then arrives on the conversation's SSE
 * stream and in GET /conversation/{id}; the decision is audited as TOOL_HOLD_RESOLVED.
 */
export function heldToolRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  const held = ports.heldTools;
  if (!held) return;
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/admin/turns/held',
      summary: 'Turns whose tool call ran out of retries and waits for an operator (TurnOutcome=HELD).',
      schema: { response: { 200: heldTurnsSchema, '4xx': errorSchema } },
    },
    async () => ({ turns: await held.list() })
  );
  route(
    app,
    docs,
    {
      method: 'POST',
      url: '/api/v1/admin/turns/:workflowId/held-tool',
      summary: 'Resolve a held tool call: retry (same idempotency key), skip, fail, or markDone with the result.',
      schema: {
        params: workflowIdParams,
        body: decisionSchema,
        response: { 200: heldToolAckSchema, '4xx': errorSchema },
      },
    },
    async (request) => {
      const workflowId = canonicalTurnId((request.params as { workflowId: string }).workflowId);
      const body = request.body as HeldToolDecisionInput;
      requireSafeText({ reason: body.reason, decidedBy: body.decidedBy, result: body.result });
      return held.resolve(workflowId, { ...body, decidedBy: body.decidedBy ?? 'api' });
    }
  );
}
