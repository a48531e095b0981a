/** A turn's request and reply: POST /conversation/message's body, and what every route running a turn answers. */
import { TurnOutcome } from '../../core/turn/contracts';
import { TurnStatus } from '../../workflows/turn-status';
import { uuidParam } from './common';
import { approvalRequestSchema } from './decisions';

/** Why a 202 answers before its turn ended (api/replies.ts): what its `turn.outcome` says. */
export const OPEN_TURN_OUTCOMES = [TurnStatus.AwaitingApproval, TurnStatus.Held, TurnStatus.Running] as const;
export type OpenTurnOutcome = (typeof OPEN_TURN_OUTCOMES)[number];

/** Every `turn.outcome` a reply gives: a 200's, how the turn ended (TurnOutcome); a 202's, why it is still open. */
const TURN_REPLY_OUTCOMES = [...new Set<string>([...Object.values(TurnOutcome), ...OPEN_TURN_OUTCOMES])];

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
    outcome: {
      type: 'string',
      enum: TURN_REPLY_OUTCOMES,
      description:
        `200: how the turn ended (${Object.values(TurnOutcome).join(', ')}); 202: why it is still open ` +
        `(${OPEN_TURN_OUTCOMES.join(', ')}).`,
    },
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
        method: { type: 'string', enum: ['POST'] },
        url: { type: 'string', description: "The approval route of the call's turn." },
        body: {
          ...approvalRequestSchema,
          description:
            'A body the approval route takes as it is: `{"decision": "reject", "callIndex": n}`, so one posted ' +
            'unread refuses the call. Set `decision` to `approve` to run it; add `reason` and `decidedBy` to record ' +
            'them (`decidedBy` is `api` when absent).',
        },
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
        'Set with 202 when the turn still runs: it outlived TURN_REPLY_TIMEOUT_MS (REPLY_TIMEOUT), the API is ' +
        'stopping (API_STOPPING), or the Temporal server stopped answering while the request waited ' +
        '(TEMPORAL_UNREACHABLE). The reply comes on the audit stream and GET /api/v1/conversation/{id}.',
      properties: { reason: { type: 'string', enum: ['REPLY_TIMEOUT', 'API_STOPPING', 'TEMPORAL_UNREACHABLE'] } },
    },
  },
} as const;
