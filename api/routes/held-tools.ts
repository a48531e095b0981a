import type { FastifyInstance } from 'fastify';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';
import { refuseMalformedDecision } from '../errors';
import { HELD_TOOL_DECISION_REFUSALS } from '../decision-refusals';
import { errorResponse, TURN_NOT_FOUND_WHEN, unavailableResponse, UNAVAILABLE_CODES } from '../error-responses';
import { heldToolDecisionSchema } from '../schemas/decisions';
import { heldToolAckSchema, heldTurnsSchema } from '../schemas/held-tools';
import { onTurnNamed, turnIdParams } from '../turns/turn-id';
import { heldToolDecisionProblem } from '../../core/turn/operator-decision';
import type { HeldToolDecisionInput } from '../../workflows/messages';
import { TurnOutcomeValue, TurnSearchAttribute } from '../../workflows/search-attributes';

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
      summary: `Turns whose tool call ran out of retries and waits for an operator (${TurnSearchAttribute.TurnOutcome}=${TurnOutcomeValue.Held}).`,
      schema: { response: { 200: heldTurnsSchema } },
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
        params: turnIdParams,
        body: heldToolDecisionSchema,
        response: {
          200: heldToolAckSchema,
          400: HELD_TOOL_DECISION_REFUSALS.badRequest,
          404: errorResponse(TURN_NOT_FOUND_WHEN),
          409: errorResponse(HELD_TOOL_DECISION_REFUSALS.conflicts.join('; ')),
          503: unavailableResponse(UNAVAILABLE_CODES.workerUnavailable),
        },
      },
      // The turn's validator would refuse it too; here it is refused before Temporal is asked, with its code
      // (REASON_TOO_LONG, INVALID_CALL_INDEX, RESULT_NOT_ALLOWED…: api/decision-refusals.ts, in the route's 400) as
      // the approval route answers it, before the schema's VALIDATION_FAILED; the schema still refuses any other
      // unknown field.
      checkBeforeSchema: (request) => refuseMalformedDecision(heldToolDecisionProblem(request.body)),
    },
    async (request) => {
      const body = request.body as HeldToolDecisionInput;
      return onTurnNamed((request.params as { workflowId: string }).workflowId, (workflowId) =>
        held.resolve(workflowId, { ...body, decidedBy: body.decidedBy ?? 'api' })
      );
    }
  );
}
