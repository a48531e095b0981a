/**
 * A conversation as the API reads it back: its state and history, its audit rows, its trace (success responses, as
 * api/schemas/common.ts says they are written).
 */
import { CONVERSATION_STATUSES } from '../../core/session';
import { anyObject, nullableString } from './common';
import { approvalSchema } from './turn';

/** Which run of its turn wrote a row: a turn number can have several (docs/architecture.md, "Runs of a turn"). */
const runIdSchema = {
  ...nullableString,
  description:
    "The Temporal run of the turn that wrote the row: an operator's retry, or a new message taking the number of a " +
    'turn that failed before committing, is another run of the same turn id, with rows of its own. Null for a row ' +
    "of no run (an operator's action, the in-process runner, rows written before migration 0016).",
} as const;

export const auditRowSchema = {
  type: 'object',
  properties: {
    auditId: { type: 'integer' },
    conversationId: { type: 'string' },
    turnNumber: { type: 'integer', nullable: true },
    runId: runIdSchema,
    stage: { type: 'string' },
    payload: { type: 'object', additionalProperties: true },
    createdAt: { type: 'string' },
  },
} as const;

/** GET /conversation/{id} without `history` (the console's conversation header). */
export const conversationFields = {
  conversationId: { type: 'string' },
  status: {
    type: 'string',
    enum: [...CONVERSATION_STATUSES],
    description: 'BLOCKED when a ce_policy row refused the last turn, else RUNNING.',
  },
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
        'says. A turn still running (past a 202) is not shown here until it ends. A turn that failed without ' +
        'recording its failure (the database down as it failed, or an older build) reads as its POST answered it. ' +
        'One ended otherwise (terminated in Temporal) is `FAILED` with `failureType` `TURN_<Temporal status>` ' +
        '(`TURN_TERMINATED`, …; `TURN_GONE` past the history retention) and `retryable` false.',
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
    runId: runIdSchema,
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
          runId: runIdSchema,
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
