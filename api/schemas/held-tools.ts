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

/** What Temporal's visibility tells of a listed parked turn, without its worker (the held turns, the approvals). */
export const listedTurnProperties = {
  workflowId: { type: 'string' },
  runId: { type: 'string' },
  intent: { type: 'string', nullable: true },
  state: { type: 'string', nullable: true },
  configVersion: { type: 'string', nullable: true },
} as const;

/**
 * A listed turn's `unavailable`: why its `field` (what it waits on) is null: a turn parked before its memo said it,
 * which only its worker tells.
 */
export const unavailableProperty = (field: string) =>
  ({
    type: 'string',
    description:
      `Why ${field} is null: the turn was parked by a worker of a build before its memo said what it waits on, and ` +
      'no worker answers it (e.g. "no worker is polling task queue …"). The turn is listed from Temporal\'s ' +
      'visibility, and still waits for a decision.',
  }) as const;

/** `{turns: [...]}`, each turn what visibility tells of it and `own`: what it waits on, from its memo. */
export const listedTurnsSchema = <P extends Record<string, unknown>>(own: P) =>
  ({
    type: 'object',
    properties: {
      turns: { type: 'array', items: { type: 'object', properties: { ...listedTurnProperties, ...own } } },
    },
  }) as const;

export const heldTurnsSchema = listedTurnsSchema({
  held: {
    ...heldToolSchema,
    nullable: true,
    description:
      "The held call, from the turn's memo (no worker needed); null for a turn held before it when its worker " +
      'cannot be asked (see unavailable).',
  },
  unavailable: unavailableProperty('held'),
});

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
