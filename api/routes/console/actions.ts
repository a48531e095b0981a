import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonObject } from '../../../core/json';
import { decisionFieldsProblem } from '../../../core/turn/operator-decision';
import { notFound, refuseMalformedDecision } from '../../errors';
import { auditedFields, CONSOLE_ACTIONS, refuseFieldsNotTaken, type ActionBody } from '../../console/actions';
import type { ConsolePorts, OperatorActionRecord } from '../../console/ports';
import { actionAnswerSchema } from '../../console/schemas';
import { inputsOf, route } from '../../openapi';
import { CONSOLE_DECISION_REFUSALS } from '../../decision-refusals';
import {
  badRequestResponse,
  errorResponse,
  TURN_IN_PROGRESS_WHEN,
  TURN_NOT_FOUND_WHEN,
  turnReplyResponses,
  UNAVAILABLE_CODES,
} from '../../error-responses';
import { decisionFieldSchemas } from '../../schemas/decisions';
import { requireSafeText } from '../../text-check';
import { onTurnNamed, parseTurnId, turnIdParams, turnNotFound } from '../../turns/turn-id';
import type { ConsoleRoute } from './index';

const actionParams = {
  type: 'object',
  required: ['workflowId', 'action'],
  properties: {
    ...turnIdParams.properties,
    action: { type: 'string', enum: CONSOLE_ACTIONS.map((a) => a.name) },
  },
};

const actionBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    activityId: { type: 'string', minLength: 1, maxLength: 200 },
    ...decisionFieldSchemas,
  },
};

const actionSchema = {
  params: actionParams,
  body: actionBody,
  response: {
    ...turnReplyResponses({
      unavailable: [UNAVAILABLE_CODES.workerUnavailable],
      conflicts: [
        ...CONSOLE_DECISION_REFUSALS.conflicts,
        'TURN_NOT_RUNNING: an activity action on a turn that is not running',
        TURN_IN_PROGRESS_WHEN,
      ],
    }),
    200: actionAnswerSchema,
    400: badRequestResponse(
      inputsOf({ params: actionParams, body: actionBody }),
      ...CONSOLE_DECISION_REFUSALS.problems,
      'ACTIVITY_ID_REQUIRED: an activity action without `activityId`'
    ),
    404: errorResponse(
      `${TURN_NOT_FOUND_WHEN} (its conversation has no row); ACTIVITY_NOT_FOUND: an activity action on an activity ` +
        'the turn is not running'
    ),
    501: errorResponse(
      'ACTIVITY_OPERATION_UNSUPPORTED: this Temporal server lacks the activity operation; HELD_TOOLS_UNSUPPORTED: ' +
        'this API has no held-tool operations'
    ),
  },
};

/** POST an SRE action on a turn (api/console/actions.ts), written to ce_audit as OPERATOR_ACTION. */
export const turnActionRoute: ConsoleRoute = (app, ports, consolePorts, docs) => {
  route(
    app,
    docs,
    {
      method: 'POST',
      url: '/api/v1/console/turns/:workflowId/actions/:action',
      summary: 'An SRE action on a turn (retry, approve/reject, activity-reset/pause/unpause, held-*); audited.',
      schema: actionSchema,
      // A decision's shared fields (reason, callIndex) get their documented codes (REASON_TOO_LONG,
      // INVALID_CALL_INDEX…), as on the decision routes, before the schema's VALIDATION_FAILED. The rest of a decision
      // (a result, a missing callIndex) is refused inside the action's audited run.
      checkBeforeSchema: (request) => refuseMalformedDecision(decisionFieldsProblem(request.body)),
      turnRequest: answersWithTurn,
    },
    async (request, reply) => {
      const params = request.params as { workflowId: string; action: string };
      return onTurnNamed(params.workflowId, async (workflowId) => {
        const { action: name } = params;
        const body = (request.body ?? {}) as ActionBody;
        requireSafeText({ reason: body.reason, activityId: body.activityId, result: body.result });
        const action = CONSOLE_ACTIONS.find((a) => a.name === name);
        if (!action) throw notFound('ACTION_NOT_FOUND', `No console action ${name}.`);
        const { conversationId, turnNumber } = parseTurnId(workflowId);
        // The OPERATOR_ACTION row needs its conversation; an unknown one is the caller's mistake, not a 500.
        if (!(await ports.conversations.conversation(conversationId))) {
          throw turnNotFound(workflowId);
        }
        // The row's key is ours, not the caller's X-Request-Id: a reused request id must not rewrite another
        // action's row.
        const record = { workflowId, conversationId, turnNumber, actionId: randomUUID() };
        const payload = { action: name, source: 'console', requestId: request.id, ...auditedFields(action, body) };
        // Refused inside the audit, as the action's own refusals are: the row says who tried what, and why it failed.
        const run = async () => {
          refuseFieldsNotTaken(action, body);
          return action.run({ workflowId, conversationId, turnNumber, body, api: ports, console: consolePorts, reply });
        };
        return runAudited(consolePorts, { ...record, payload }, reply, run);
      });
    }
  );
};

/** Whether the action a request names answers with a turn's reply (retry, approve, reject). */
function answersWithTurn(request: FastifyRequest): boolean {
  const { action } = request.params as { action?: string };
  return CONSOLE_ACTIONS.some((a) => a.name === action && a.answersWithTurn === true);
}

/** Writes the action's row as STARTED, runs it, and rewrites the row (same key) as DONE or FAILED. */
async function runAudited(
  consolePorts: ConsolePorts,
  { payload, ...record }: OperatorActionRecord,
  reply: FastifyReply,
  run: () => Promise<unknown>
): Promise<unknown> {
  const write = (status: JsonObject) => consolePorts.recordAction({ ...record, payload: { ...payload, ...status } });
  await write({ result: 'STARTED' });
  try {
    const answer = await run();
    await write({ result: 'DONE', httpStatus: reply.statusCode });
    return answer;
  } catch (err) {
    const failure = err instanceof Error ? ('code' in err && String(err.code)) || err.name : 'ERROR';
    await write({ result: 'FAILED', failure });
    throw err;
  }
}
