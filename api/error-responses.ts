import { PREREQUISITE_MESSAGES } from '../observability/prerequisite-problems';
import { BEARER_CHALLENGES, OPERATOR_CHALLENGE } from './auth';
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
 * A `Retry-After` response header (RFC 9110 §10.2.3) in Fastify's response-schema form, which api/openapi.ts carries
 * into the document (the serializer ignores it): whole seconds, `when` saying which answers send it.
 */
export const retryAfterHeader = (when: string, required = false) => ({
  'Retry-After': {
    description: `Seconds to wait before sending the request again: ${when}.`,
    required,
    schema: { type: 'integer', minimum: 1 },
  },
});

/**
 * The codes a 503 sends `Retry-After` with (api/error-handler.ts retryLaterOn: a prerequisite missing or a dependency
 * down; api/concurrency-limit.ts: a busy process). The others (TURN_FAILED, API_STOPPING, WORKER_UNAVAILABLE…) send
 * none: the same request would get the same answer, or goes to another process at once.
 */
const RETRY_AFTER_503 = retryAfterHeader(
  `with ${Object.keys(PREREQUISITE_MESSAGES).join(', ')} and TOO_MANY_MESSAGES; never with TURN_FAILED (the same ` +
    'request with the same Idempotency-Key answers the same failure) nor with any other code'
);

/**
 * A 503 in the error envelope: `more` (a route's own codes, "CODE: when") and the ones any route may answer: a
 * dependency down (api/error-handler.ts) or the API stopping (api/app.ts).
 */
export function unavailableResponse(...more: string[]) {
  const response = errorResponse(
    [
      ...more,
      'DATABASE_UNREACHABLE, TEMPORAL_UNREACHABLE: a dependency the request needs did not answer; retry after ' +
        '`Retry-After` seconds',
      "DATABASE_BUSY: the database answers, but no connection of this API's pool was free (or answered) in time: " +
        'the load outgrows the pool or the server; retry after `Retry-After` seconds',
      'TEMPORAL_NAMESPACE_MISSING: the Temporal namespace does not exist until an operator runs ' +
        '`convengine setup-temporal`',
      'DATABASE_NOT_MIGRATED: the database lacks migrations this build needs until an operator runs ' +
        '`convengine migrate`',
      'DEPLOYMENT_MISMATCH (every /api/ route): the database is bound to another deployment (Temporal namespace or ' +
        "task queue) than this API's, until an operator fixes its settings or rebinds the database " +
        '(`convengine migrate --bind-deployment`); with `Retry-After`',
      'API_STOPPING: this API process is stopping; send the request again (to another one)',
    ].join('; ')
  );
  return { ...response, headers: RETRY_AFTER_503 };
}

/**
 * What any route may answer besides its own responses: the one error handler's (api/error-handler.ts) and the
 * stopping API's (api/app.ts), all in the error envelope. api/openapi.ts's `route` adds each status a route does
 * not document itself, to the OpenAPI document and to the route's serializer alike, with BODY_REFUSED on the routes
 * that take a body and UNAUTHORIZED on those the token guards.
 */
export const errorResponses = {
  '4xx': {
    ...errorResponse(
      'The request is refused: VALIDATION_FAILED (400: `details.in`, `details.field` and `details.problem` say which ' +
        'input failed which keyword of the schema) and the like, BODY_TOO_LARGE (413), UNSUPPORTED_MEDIA_TYPE, ' +
        'UNSUPPORTED_CHARSET, UNSUPPORTED_CONTENT_ENCODING (415), METHOD_NOT_ALLOWED (405, with `Allow`: a method ' +
        "the path does not take), and the route's own codes; another 4xx is coded by its status's name (403 " +
        'FORBIDDEN: a dot-segment in a path under /docs/static).'
    ),
    headers: {
      Allow: {
        description: 'With 405 METHOD_NOT_ALLOWED: the methods the path takes, comma-separated (RFC 9110 §10.2.1).',
        required: false,
        schema: { type: 'string' },
      },
    },
  },
  500: errorResponse(INTERNAL),
  503: unavailableResponse(),
} as const;

/**
 * The 400 of a route that takes a JSON body (api/json-body.ts, api/json-loss.ts): besides a body its schema refuses,
 * one JSON.parse would read by changing it without a word is refused, naming the field in `details.field`.
 */
export const BODY_REFUSAL_CODES = [
  'VALIDATION_FAILED: a field is missing, unknown or of the wrong form (`details.in`, `details.field`, ' +
    '`details.problem`: the JSON Schema keyword it fails)',
  'MALFORMED_BODY: the body is not JSON, or gives a key twice in one object, at any depth (`details.field`; ' +
    'the last one would win)',
  'INEXACT_NUMBER (`details.field`): a number a double does not hold exactly (1e400, ' +
    '123456789012345678901234567890); send it as a string',
  'INVALID_TEXT: the body is not UTF-8, or a field holds text that cannot be stored (`details.field`)',
] as const;

/** The 400 line of a route whose path, query or headers its schema checks. */
const INPUT_VALIDATION =
  'VALIDATION_FAILED: a path or query parameter or a header is missing, unknown or of the wrong form (`details.in`, ' +
  '`details.field`, `details.problem`)';
const QUERY_TEXT =
  'INVALID_TEXT: a query parameter is not UTF-8, or holds text that cannot be stored (`details.field`)';

/** The 400 line of a route that names a turn by its workflow id (api/turns/turn-id.ts installTurnIdCheck). */
export const INVALID_TURN_ID_WHEN =
  'INVALID_TURN_ID: the workflow id is not turn-<conversation id>-<turn number, 1 to 999999999> (checked before the ' +
  'schema)';

/** What a route's input may be refused with besides its own codes: its body, its path, query and headers. */
export interface RouteInputs {
  body: boolean;
  /** Path parameters, query or headers its schema checks. */
  checked: boolean;
  query: boolean;
  /** A path parameter is a turn's workflow id. */
  turn: boolean;
}

/**
 * The 400 of a route that takes input (api/openapi.ts adds it to one that does not document its own): `own`, its own
 * codes, then what any such input may get. A route that documents its own 400 builds it here too.
 */
export function badRequestResponse(inputs: RouteInputs, ...own: string[]) {
  const lines = [
    ...own,
    ...(inputs.turn ? [INVALID_TURN_ID_WHEN] : []),
    ...(inputs.body ? BODY_REFUSAL_CODES : inputs.checked ? [INPUT_VALIDATION] : []),
    ...(inputs.query ? [QUERY_TEXT] : []),
  ];
  return errorResponse(lines.join('; '));
}

/** The 404 line of a route that reads or acts on a conversation by its id. */
export const CONVERSATION_NOT_FOUND_WHEN = 'CONVERSATION_NOT_FOUND: no conversation has this id';

/** The 404 line of a route that acts on a turn by its workflow id. */
export const TURN_NOT_FOUND_WHEN =
  "TURN_NOT_FOUND: no turn of this id ran on this deployment's task queue, or Temporal no longer holds it (past the " +
  "namespace's retention)";

/**
 * An error response whose envelope's code is always `code`, with the `WWW-Authenticate` it sends (one of
 * `challenges`). The header is Fastify's response-schema form, which api/openapi.ts carries into the document; the
 * serializer ignores it.
 */
function challengeResponse(code: string, description: string, challenge: { description: string; values: string[] }) {
  const envelope = errorSchema.properties.error;
  return {
    ...errorSchema,
    properties: {
      error: { ...envelope, properties: { ...envelope.properties, code: { type: 'string', enum: [code] } } },
    },
    description,
    headers: {
      'WWW-Authenticate': {
        description: challenge.description,
        required: true,
        schema: { type: 'string', enum: challenge.values },
      },
    },
  };
}

/**
 * The 401 of a route the bearer token guards (api/auth.ts), with API_TOKEN set: the envelope's code is always
 * UNAUTHORIZED, and `WWW-Authenticate` says how to authenticate. It is the same whichever tokens are set.
 */
export const UNAUTHORIZED = {
  401: challengeResponse(
    'UNAUTHORIZED',
    'UNAUTHORIZED: API_TOKEN is set and the request sent no `Authorization: Bearer <token>`, or a token that is ' +
      'neither API_TOKEN nor OPERATOR_API_TOKEN.',
    {
      description:
        `\`${BEARER_CHALLENGES.noToken}\` when no bearer token was sent, \`${BEARER_CHALLENGES.invalidToken}\` ` +
        'when the one sent is not an API token (RFC 6750 §3).',
      values: Object.values(BEARER_CHALLENGES),
    }
  ),
} as const;

/**
 * The 403 of an operator's route (api/auth.ts, routeAccess) sent the gateway's token while OPERATOR_API_TOKEN is
 * set. Every operator route documents it, whichever tokens are set: the document does not say which are.
 */
export const OPERATOR_TOKEN_REQUIRED = {
  403: challengeResponse(
    'OPERATOR_TOKEN_REQUIRED',
    "OPERATOR_TOKEN_REQUIRED: OPERATOR_API_TOKEN is set and the request sent the gateway's token (API_TOKEN), " +
      "which does not reach the operator's routes.",
    { description: `\`${OPERATOR_CHALLENGE}\` (RFC 6750 §3.1).`, values: [OPERATOR_CHALLENGE] }
  ),
} as const;

/**
 * The 421 of every route but liveness with API_TOKEN unset (api/host-check.ts): a request that names the API by
 * another name than its own, as a page using DNS rebinding makes a browser send.
 */
export const HOST_NOT_ALLOWED = {
  421: errorResponse(
    "HOST_NOT_ALLOWED: API_TOKEN is unset and the request's Host is neither a loopback name (localhost, " +
      '*.localhost, 127.0.0.1, [::1]) nor the HOST the API listens on; set API_TOKEN to serve other names'
  ),
} as const;

/** The 409 of a route that starts a turn while another of its conversation runs (api/turns/gateway.ts). */
export const TURN_IN_PROGRESS_WHEN =
  'TURN_IN_PROGRESS: another turn of the conversation runs (`details.workflowId` names it when known); send the ' +
  'request again when it has finished';

/** The 503 codes of the routes that start a turn or decide on one, besides the ones any route may answer. */
export const UNAVAILABLE_CODES = {
  notReady:
    'DATABASE_NOT_MIGRATED, SEARCH_ATTRIBUTES_MISSING: no turn can run until an operator runs `convengine migrate` ' +
    'or `convengine setup-temporal`; CONFIG_EMPTY: the config has no intent and no response (nothing was seeded or ' +
    'applied) until an operator runs `convengine seed` or `convengine config apply`; these three with `Retry-After`',
  workerUnavailable:
    'WORKER_UNAVAILABLE (`details.decisionSent`): no worker took the decision: not sent when no worker that runs ' +
    "the turn's type polls its task queue, nor while no worker answers the turn's workflow task (it timed out and " +
    'is retried: a decision sent earlier is kept unless a worker fails the task); else sent, not taken within OPERATOR_DECISION_TIMEOUT_MS, and it ' +
    "may still be applied when a worker returns; TURN_NOT_READY (`details.decisionSent` false): the turn's workflow " +
    'task failed or is failing, or timed out, and Temporal dropped the decision unapplied: check the turn, then ' +
    'decide again; ' +
    'WORKER_LACKS_PATCH (`details.decisionSent` false, `details.patches`): no worker polling knows every workflow ' +
    'patch the turn recorded (workers of an older build): not sent; deploy newer workers, then decide again',
} as const;

/**
 * What every TURN_FAILED carries in `details`, and who may follow `retryWith`: the operator, never the gateway, whose
 * token gets 403 there once OPERATOR_API_TOKEN is set (api/replies.ts).
 */
const TURN_FAILED_DETAILS =
  '`details`: `workflowId`, `runId`, `number`, `failureType`, `retryable`, `userMessage` (the text for the end ' +
  'user), and `retryWith` `{method, url, access: "operator"}`: the admin route that re-runs the turn, an ' +
  "operator's remedy (OPERATOR_API_TOKEN; the gateway's token gets 403 OPERATOR_TOKEN_REQUIRED there when that is " +
  "set), not a client's";

/**
 * A route answering with a turn's reply (api/replies.ts): the reply, or the turn's failure; `more.conflicts` are the
 * route's own 409 codes ("CODE: when"), `more.unavailable` its own 503 codes.
 */
export function turnReplyResponses(more: { conflicts?: readonly string[]; unavailable?: readonly string[] } = {}) {
  return {
    200: turnResponseSchema,
    202: turnResponseSchema,
    409: errorResponse(
      'TURN_FAILED (`details.failureType` TURN_CANCELLED or TURN_TERMINATED, `details.retryable` false): an operator ' +
        'ended the turn in Temporal on purpose; a client reads the conversation and does not send the request ' +
        `again; an operator re-runs it (\`details.retryWith\`) only if that is wanted; ${TURN_FAILED_DETAILS}` +
        (more.conflicts ?? []).map((line) => `; ${line}`).join('')
    ),
    500: errorResponse(
      `TURN_FAILED (\`details.retryable\` false): a config or input error; once it is fixed, a client sends the ` +
        `request again with a new Idempotency-Key, or an operator re-runs the turn; ${TURN_FAILED_DETAILS}; ${INTERNAL}`
    ),
    503: unavailableResponse(
      'TURN_FAILED (`details.retryable` true), without `Retry-After`: the turn failed for a reason a new request ' +
        'can fix, and nothing was committed: a client sends the request again with a new Idempotency-Key (the ' +
        `same key answers this failure again); ${TURN_FAILED_DETAILS}`,
      ...(more.unavailable ?? [])
    ),
  };
}
