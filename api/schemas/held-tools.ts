/** Tool calls held for an operator (#22): the held turns' list and a decision's answer. */
import { HELD_TOOL_ACTIONS } from '../../core/turn/operator-decision';

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
