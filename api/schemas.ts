import { APPROVAL_DECISIONS, DECISION_LIMITS, HELD_TOOL_ACTIONS } from '../core/turn/operator-decision';

/** JSON Schemas shared by request validation, response serialization and the OpenAPI document. */
export const uuidParam = {
  type: 'string',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
} as const;

export const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true },
      },
    },
  },
} as const;

export const payloadSchema = {
  type: 'object',
  required: ['type', 'value'],
  properties: { type: { type: 'string', enum: ['TEXT', 'JSON'] }, value: {} },
} as const;

export const turnRefSchema = {
  type: 'object',
  required: ['workflowId', 'runId', 'number', 'outcome'],
  properties: {
    workflowId: { type: 'string' },
    runId: { type: 'string' },
    number: { type: 'integer' },
    outcome: { type: 'string' },
  },
} as const;

export const messageRequestSchema = {
  type: 'object',
  required: ['message'],
  additionalProperties: false,
  properties: {
    conversationId: uuidParam,
    message: { type: 'string', minLength: 1 },
    inputParams: { type: 'object', additionalProperties: true },
    reset: { type: 'boolean' },
  },
} as const;

export const approvalSchema = {
  type: 'object',
  properties: {
    toolCode: { type: 'string' },
    args: { type: 'object', additionalProperties: true },
    callIndex: { type: 'integer' },
    expiresAt: { type: 'string' },
    decideWith: {
      type: 'object',
      properties: {
        method: { type: 'string' },
        url: { type: 'string' },
        body: { type: 'object', additionalProperties: true },
      },
    },
  },
} as const;

export const turnResponseSchema = {
  type: 'object',
  required: ['success', 'conversationId', 'intent', 'state', 'payload', 'context', 'turn'],
  properties: {
    success: { type: 'boolean' },
    conversationId: { type: 'string' },
    intent: { type: 'string' },
    state: { type: 'string' },
    payload: payloadSchema,
    context: { type: 'object', additionalProperties: true },
    turn: turnRefSchema,
    approval: approvalSchema,
    held: {
      type: 'object',
      description: 'Set with 202 when a tool call failed and the turn waits for an operator (#22).',
      properties: { toolCode: { type: 'string' }, callIndex: { type: 'integer' }, expiresAt: { type: 'string' } },
    },
    running: {
      type: 'object',
      description:
        'Set with 202 when the turn still runs: it outlived TURN_REPLY_TIMEOUT_MS (REPLY_TIMEOUT) or the API is ' +
        'stopping (API_STOPPING). The reply comes on the audit stream and GET /api/v1/conversation/{id}.',
      properties: { reason: { type: 'string', enum: ['REPLY_TIMEOUT', 'API_STOPPING'] } },
    },
  },
} as const;

/**
 * The fields of an operator's decision, limited as core/turn/operator-decision.ts says: the turn's update
 * validator enforces the same numbers for decisions sent around the API, so these only refuse earlier.
 */
export const decisionFieldSchemas = {
  reason: { type: 'string', maxLength: DECISION_LIMITS.reasonChars },
  // 0 is a request's direct tool call (runbook §6), planner calls count from 1.
  callIndex: { type: 'integer', minimum: 0, maximum: DECISION_LIMITS.callIndex },
  result: {
    description:
      `Held-tool markDone only, and required there: the result verified upstream (any JSON, at most ` +
      `${DECISION_LIMITS.resultBytes} bytes as UTF-8 JSON).`,
  },
} as const;

/** Who decides, on the API's decision routes (the console's decisions are always `console`). */
export const decidedBySchema = {
  type: 'string',
  minLength: 1,
  maxLength: DECISION_LIMITS.decidedByChars,
  description: 'Who decides (a user or a tool), recorded as `decided_by`; `api` when absent.',
} as const;

export const approvalRequestSchema = {
  type: 'object',
  required: ['decision'],
  additionalProperties: false,
  properties: {
    decision: { type: 'string', enum: [...APPROVAL_DECISIONS] },
    callIndex: {
      ...decisionFieldSchemas.callIndex,
      description:
        'Required (`CALL_INDEX_REQUIRED` without it): the call you decide, `approval.callIndex` of the 202. A turn ' +
        'may wait on several calls one after another; a decision for a call that is no longer the pending one is ' +
        'refused (409) instead of landing on the next.',
    },
    reason: decisionFieldSchemas.reason,
    decidedBy: decidedBySchema,
  },
} as const;

export const auditRowSchema = {
  type: 'object',
  properties: {
    auditId: { type: 'integer' },
    conversationId: { type: 'string' },
    turnNumber: { type: 'integer', nullable: true },
    stage: { type: 'string' },
    payload: { type: 'object', additionalProperties: true },
    createdAt: { type: 'string' },
  },
} as const;

/*
 * Success responses. They serialize the route's answer too, so each lists every field the route sends (a field
 * left out would be dropped), requires none, and marks what may be null as nullable (else null becomes "").
 */
const anyObject = { type: 'object', additionalProperties: true } as const;
const nullableString = { type: 'string', nullable: true } as const;

export const livenessSchema = {
  type: 'object',
  description: 'The process is up.',
  properties: { status: { type: 'string', enum: ['ok'] } },
} as const;

/** The same body with 200 (every check "ok") and with 503. */
export const readinessSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ready', 'not ready'] },
    checks: {
      type: 'object',
      description:
        'Per dependency (database, temporal, worker): "ok" or what is wrong; only `api: "stopping"` while the API ' +
        'closes.',
      additionalProperties: { type: 'string' },
    },
    warnings: {
      type: 'object',
      description:
        'Present when something needs an operator but stops no turn, by subject: database (migrated by a newer ' +
        'build), config (the current config is refused and a stored snapshot is served), worker (some workers ' +
        'polling are of an older build).',
      additionalProperties: { type: 'string' },
    },
  },
} as const;

/** A response that is not JSON, in Fastify's per-media-type form (api/openapi.ts documents it as is). */
export function textResponse(mediaType: string, description: string) {
  return { description, content: { [mediaType]: { schema: { type: 'string' } } } };
}

/** GET /conversation/{id} without `history` (the console's conversation header). */
export const conversationFields = {
  conversationId: { type: 'string' },
  status: { type: 'string' },
  intent: { type: 'string' },
  state: { type: 'string' },
  context: anyObject,
  inputParams: anyObject,
  lastAssistant: { description: 'The last reply as stored (`{type, value}`), or null before the first.' },
  turnCount: { type: 'integer' },
  configVersion: nullableString,
  createdAt: { type: 'string' },
  updatedAt: { type: 'string' },
} as const;

export const conversationSchema = {
  type: 'object',
  properties: {
    ...conversationFields,
    history: {
      type: 'array',
      description: 'The latest 50 turns, oldest first.',
      items: {
        type: 'object',
        properties: {
          turnNumber: { type: 'integer' },
          userInput: nullableString,
          assistantOutput: {},
          createdAt: { type: 'string' },
        },
      },
    },
    lastTurn: {
      type: 'object',
      nullable: true,
      description:
        'The last turn that ended, null before any did: `COMPLETED` (turn `turnCount`), or `FAILED` with the ' +
        "failure's `failureType` and whether a retry may succeed (`retryable`), as the POST's 5xx `TURN_FAILED` " +
        'says. A turn still running (past a 202) is not shown here until it ends. A turn that ended without ' +
        'recording its failure (terminated in Temporal, or failed under an older build) is `FAILED` with ' +
        '`failureType` `TURN_<Temporal status>` (`TURN_TERMINATED`, …; `TURN_GONE` past the history retention) and ' +
        '`retryable` false.',
      properties: {
        turnNumber: { type: 'integer' },
        status: { type: 'string', enum: ['COMPLETED', 'FAILED'] },
        failureType: { type: 'string' },
        retryable: { type: 'boolean' },
      },
    },
    pendingApproval: {
      type: 'object',
      nullable: true,
      description:
        'The tool call a turn waits on for a person (D16), null when none does: the turn number, the call as the ' +
        "202's `approval` names it, and `decideWith`. It shows from the moment the turn parks (the stream has its " +
        '`MCP_TOOL_APPROVAL_REQUESTED` event then) until the decision is recorded or `expiresAt` passes.',
      properties: { turnNumber: { type: 'integer' }, ...approvalSchema.properties },
    },
  },
} as const;

const traceStageSchema = {
  type: 'object',
  properties: {
    auditId: { type: 'integer' },
    stage: { type: 'string' },
    createdAt: { type: 'string' },
    payload: anyObject,
  },
} as const;

export const traceSchema = {
  type: 'object',
  properties: {
    conversationId: { type: 'string' },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          step: { type: 'string' },
          stepClass: { type: 'string' },
          turnNumber: { type: 'integer', nullable: true },
          status: { type: 'string', enum: ['RUNNING', 'OK', 'ERROR'] },
          startedAt: { type: 'string' },
          endedAt: nullableString,
          durationMs: { type: 'number', nullable: true },
          error: { type: 'object', nullable: true, properties: { type: nullableString, message: nullableString } },
          stages: { type: 'array', items: traceStageSchema },
        },
      },
    },
    stages: { type: 'array', items: traceStageSchema },
  },
} as const;

/** #22: a tool call held for an operator, as the workflow's progress query reports it. */
export const heldToolSchema = {
  type: 'object',
  properties: {
    toolCode: { type: 'string' },
    callIndex: { type: 'integer' },
    sideEffect: { type: 'string' },
    attempts: { type: 'integer' },
    failureType: { type: 'string' },
    error: { type: 'string' },
    outcomeUnknown: { type: 'boolean' },
    heldAt: { type: 'string' },
    expiresAt: { type: 'string' },
    intent: { type: 'string' },
    state: { type: 'string' },
  },
} as const;

export const heldTurnsSchema = {
  type: 'object',
  properties: {
    turns: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          workflowId: { type: 'string' },
          runId: { type: 'string' },
          intent: { type: 'string', nullable: true },
          state: { type: 'string', nullable: true },
          configVersion: { type: 'string', nullable: true },
          held: {
            ...heldToolSchema,
            nullable: true,
            description: 'The held call, as the turn tells it; null when its worker cannot be asked (see unavailable).',
          },
          unavailable: {
            type: 'string',
            description:
              'Why held is null: no worker answers the turn (e.g. "no worker is polling task queue …"). The turn is ' +
              "listed from Temporal's visibility, and still waits for a decision.",
          },
        },
      },
    },
  },
} as const;

/** The resolveHeldTool update's answer. */
export const heldToolAckSchema = {
  type: 'object',
  properties: {
    accepted: { type: 'boolean' },
    toolCode: { type: 'string' },
    callIndex: { type: 'integer' },
    action: { type: 'string', enum: [...HELD_TOOL_ACTIONS] },
  },
} as const;

/** An operator's decision on a held tool call (#22), the resolveHeldTool update's input. */
export const heldToolDecisionSchema = {
  type: 'object',
  required: ['action'],
  additionalProperties: false,
  properties: {
    action: { type: 'string', enum: [...HELD_TOOL_ACTIONS] },
    decidedBy: decidedBySchema,
    ...decisionFieldSchemas,
  },
} as const;
