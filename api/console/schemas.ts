/**
 * The console API's success responses (api/routes/console/). As in api/schemas/, they also serialize the
 * answer: every field the route sends is listed, none required, and what may be null is nullable.
 */
import { anyObject, nullableString } from '../schemas/common';
import { auditRowSchema, conversationFields } from '../schemas/conversation';
import { heldToolSchema } from '../schemas/held-tools';
import { turnResponseSchema } from '../schemas/turn';
import { CONSOLE_CONVERSATION_STATUSES, SEARCH_COUNT_CAP } from './ports';

export const consoleMetaSchema = {
  type: 'object',
  properties: {
    temporalUi: {
      type: 'object',
      nullable: true,
      description: 'The Temporal Web UI the console links turns to, or null.',
      properties: { url: { type: 'string' }, namespace: { type: 'string' } },
    },
    actions: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, summary: { type: 'string' } } },
    },
  },
} as const;

export const conversationPageSchema = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          conversationId: { type: 'string' },
          status: {
            type: 'string',
            enum: [...CONSOLE_CONVERSATION_STATUSES],
            description:
              'AWAITING_APPROVAL while a turn of the conversation is parked on a tool approval, HELD while it ' +
              "holds a tool call for an operator (both from the parked turn's TurnOutcome search attribute); " +
              "otherwise the conversation's own: BLOCKED when a ce_policy row refused the last turn, else RUNNING.",
          },
          intent: { type: 'string' },
          state: { type: 'string' },
          turnCount: { type: 'integer' },
          lastUserText: nullableString,
          configVersion: nullableString,
          updatedAt: { type: 'string' },
        },
      },
    },
    total: {
      type: 'integer',
      description:
        `Conversations that match, on every page, counted up to ${SEARCH_COUNT_CAP}; ` +
        'with `totalCapped`, at least this many (a text held by more rows than the search counts).',
    },
    totalCapped: {
      type: 'boolean',
      description:
        `Present (true) when \`total\` is a lower bound: more than ${SEARCH_COUNT_CAP} conversations match, or a text ` +
        `is held by more than ${SEARCH_COUNT_CAP} rows (messages, replies), whose conversations are then not all counted.`,
    },
    limit: { type: 'integer' },
    next: {
      type: 'string',
      nullable: true,
      description:
        'The next page: pass it as `after` (the `Link: <…>; rel="next"` header is the same URL); null on the last page.',
    },
    parkedStatusUnknown: {
      type: 'boolean',
      description:
        "Present (true) when Temporal's visibility could not be read for an unfiltered page: every status is then the " +
        "conversation's stored one, so a conversation parked on an approval (AWAITING_APPROVAL) or held for an " +
        'operator (HELD) shows RUNNING or BLOCKED.',
    },
    awaitingApprovalUnknown: {
      type: 'boolean',
      deprecated: true,
      description:
        'Deprecated: the same as parkedStatusUnknown, under its name from before HELD was listed; sent with it ' +
        'for as long as /api/v1 is served. Read parkedStatusUnknown.',
    },
  },
} as const;

/** What the user said in a turn, as both the turn list and the turn's page show it. */
const userInputSchema = {
  ...nullableString,
  description:
    "What the user said: the committed turn's text, else its latest run's USER_INPUT row, else the message that run " +
    'was started with (its workflow input), so known from the turn start. Null when none can be read.',
} as const;

/** An earlier run of a turn as both the turn list and the turn's page show it (api/console/turn-runs.ts). */
const earlierRunFields = {
  runId: { type: 'string' },
  userInput: { ...nullableString, description: 'What the user said in that run (its USER_INPUT row), or null.' },
  superseded: {
    type: 'boolean',
    description:
      "A failed message superseded by a later one: the run said something else than the turn's final run. A " +
      'turn that fails commits nothing, so the next message takes its number and runs as another run of the same ' +
      "turn id. False for a run of the same message again (an operator's retry, a reset).",
  },
} as const;

export const conversationTurnsSchema = {
  type: 'object',
  properties: {
    conversation: {
      type: 'object',
      properties: {
        ...conversationFields,
        status: {
          type: 'string',
          enum: [...CONSOLE_CONVERSATION_STATUSES],
          description: 'As the conversation list says it: AWAITING_APPROVAL or HELD while a turn of it is parked.',
        },
      },
    },
    turns: {
      type: 'array',
      description:
        "The conversation's turn workflows from Temporal's visibility, the latest run of each, with the runs before it.",
      items: {
        type: 'object',
        properties: {
          workflowId: { type: 'string' },
          runId: { type: 'string' },
          turnNumber: { type: 'integer' },
          status: { type: 'string' },
          outcome: nullableString,
          startedAt: { type: 'string' },
          closedAt: nullableString,
          userInput: userInputSchema,
          assistantOutput: {},
          earlierRuns: {
            type: 'array',
            description: 'The runs of the turn id before its latest one, oldest first: failed runs, each kept listed.',
            items: {
              type: 'object',
              properties: {
                ...earlierRunFields,
                status: { type: 'string' },
                outcome: nullableString,
                startedAt: { type: 'string' },
                closedAt: nullableString,
              },
            },
          },
        },
      },
    },
    limit: { type: 'integer' },
    next: { ...nullableString, description: "The next page's `after`; null on the last page." },
  },
} as const;

const storySchema = {
  type: 'object',
  description: "The turn's story from its event history.",
  properties: {
    startedAt: nullableString,
    closedAt: nullableString,
    durationMs: { type: 'number', nullable: true },
    status: { type: 'string' },
    configVersion: nullableString,
    searchAttributes: anyObject,
    decisions: { type: 'array', items: { type: 'string' } },
    timeline: { type: 'array', description: 'Steps, timers, signals and updates, in order.', items: anyObject },
    result: {},
    failure: nullableString,
    eventCount: { type: 'integer' },
  },
} as const;

const pendingActivitySchema = {
  type: 'object',
  properties: {
    activityId: { type: 'string' },
    type: { type: 'string' },
    state: { type: 'string' },
    attempt: { type: 'integer' },
    maximumAttempts: { type: 'integer' },
    paused: { type: 'boolean' },
    lastFailure: nullableString,
    nextAttemptAt: nullableString,
  },
} as const;

export const turnViewSchema = {
  type: 'object',
  properties: {
    workflowId: { type: 'string' },
    conversationId: { type: 'string' },
    turnNumber: { type: 'integer' },
    runId: {
      type: 'string',
      description:
        "The turn's latest run, as the workflow names it: the run the page shows, also before it wrote an audit row.",
    },
    userInput: userInputSchema,
    response: { description: 'The reply the turn gave, or null.' },
    story: storySchema,
    earlierRuns: {
      type: 'array',
      description:
        "The runs before the turn's final one that wrote audit rows, oldest first (their rows are in audits).",
      items: { type: 'object', properties: earlierRunFields },
    },
    audits: {
      type: 'array',
      items: {
        type: 'object',
        properties: { ...auditRowSchema.properties, callKey: { type: 'string' } },
      },
    },
    pendingActivities: { type: 'array', items: pendingActivitySchema },
    pendingApproval: {
      type: 'object',
      nullable: true,
      properties: {
        toolCode: { type: 'string' },
        args: anyObject,
        callIndex: { type: 'integer' },
        expiresAt: { type: 'string' },
        intent: { type: 'string' },
        state: { type: 'string' },
      },
    },
    heldTool: { ...heldToolSchema, nullable: true },
    waitingUnavailable: {
      ...nullableString,
      description:
        'Why the approval or held call the turn waits on is not shown: no worker answers its query. Null otherwise.',
    },
    temporalUiUrl: nullableString,
  },
} as const;

/**
 * What an action answers depends on the action, so this lists the fields of each and keeps any other: one
 * schema per action would make the serializer pick among them, and a mismatch a 500.
 */
export const actionAnswerSchema = {
  type: 'object',
  description:
    'retry, approve, reject: the turn reply (as POST /api/v1/conversation/message); activity-*: ' +
    '{ok, action, workflowId, activityId}; held-*: {accepted, toolCode, callIndex, ok, action, workflowId}.',
  additionalProperties: true,
  properties: {
    ...turnResponseSchema.properties,
    ok: { type: 'boolean' },
    action: { type: 'string' },
    workflowId: { type: 'string' },
    activityId: { type: 'string' },
    accepted: { type: 'boolean' },
    toolCode: { type: 'string' },
    callIndex: { type: 'integer' },
  },
} as const;
