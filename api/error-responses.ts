import { errorSchema } from './schemas/common';
import { turnResponseSchema } from './schemas/turn';

/**
 * The error responses of the routes (the error envelope, api/errors.ts), each saying which codes come with its status
 * and when: what every route may answer, and what the routes that run or decide turns add.
 */

const INTERNAL = 'INTERNAL: something failed on our side; nothing of it is shown';

/** A response in the error envelope, saying which codes come with its status and when. */
export const errorResponse = (description: string) => ({ ...errorSchema, description });

/**
 * A 503 in the error envelope: `more` (a route's own codes, "CODE: when") and the ones any route may answer: a
 * dependency down (api/error-handler.ts) or the API stopping (api/app.ts).
 */
export function unavailableResponse(...more: string[]) {
  return errorResponse(
    [
      ...more,
      'DATABASE_UNREACHABLE, TEMPORAL_UNREACHABLE: a dependency the request needs did not answer; retry after ' +
        '`Retry-After` seconds',
      'API_STOPPING: this API process is stopping; send the request again (to another one)',
    ].join('; ')
  );
}

/**
 * What any route may answer besides its own responses: the one error handler's (api/error-handler.ts) and the
 * stopping API's (api/app.ts), all in the error envelope. api/openapi.ts's `route` adds each status a route does
 * not document itself, to the OpenAPI document and to the route's serializer alike.
 */
export const errorResponses = {
  '4xx': errorResponse(
    'The request is refused: VALIDATION_FAILED, MALFORMED_BODY and the like (400), UNAUTHORIZED (401, with an API ' +
      "token configured), BODY_TOO_LARGE (413), UNSUPPORTED_MEDIA_TYPE (415), and the route's own codes."
  ),
  500: errorResponse(INTERNAL),
  503: unavailableResponse(),
} as const;

/** The 503 codes of the routes that start a turn or decide on one, besides the ones any route may answer. */
export const UNAVAILABLE_CODES = {
  notReady:
    'DATABASE_NOT_MIGRATED, SEARCH_ATTRIBUTES_MISSING: no turn can run until an operator runs `convengine migrate` ' +
    'or `convengine setup-temporal`',
  workerUnavailable:
    'WORKER_UNAVAILABLE (`details.decisionSent`): no worker took the decision: not sent when no worker that runs ' +
    "the turn's type polls its task queue; else sent, not taken within OPERATOR_DECISION_TIMEOUT_MS, and it may " +
    "still be applied when a worker returns; TURN_NOT_READY (`details.decisionSent` false): the turn's workflow " +
    'task failed or is failing, and Temporal dropped the decision unapplied: check the turn, then decide again',
} as const;

/** A route answering with a turn's reply (api/replies.ts): the reply, or the turn's failure; `more` 503 codes. */
export function turnReplyResponses(...more: string[]) {
  return {
    200: turnResponseSchema,
    202: turnResponseSchema,
    500: errorResponse(`TURN_FAILED (\`details.retryable\` false): fix the cause, then retry the turn; ${INTERNAL}`),
    503: unavailableResponse(
      'TURN_FAILED (`details.retryable` true): the turn failed for a reason a retry can fix (`details.retryWith`)',
      ...more
    ),
  };
}
