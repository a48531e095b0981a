/** The approvers' queue: the turns waiting for a tool approval (D16), a page at a time. */
import { listedTurnsSchema, unavailableProperty } from './held-tools';
import { approvalSchema } from './turn';

/** Turns per page when the caller names no limit. */
export const APPROVAL_QUEUE_PAGE = 50;

export const approvalQueueQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'string',
      pattern: '^(?:[1-9]|[1-9][0-9]|100)$',
      description: `Turns per page, 1 to 100; ${APPROVAL_QUEUE_PAGE} when not given.`,
    },
    after: {
      type: 'string',
      minLength: 1,
      maxLength: 4000,
      pattern: '^[A-Za-z0-9_-]+$',
      description:
        "The previous page's `next`: the turns after it. Anything else is 400 INVALID_CURSOR (or VALIDATION_FAILED " +
        'when it is not base64url at all).',
    },
  },
} as const;

const nullableString = { type: 'string', nullable: true } as const;

const turns = listedTurnsSchema({
  conversationId: nullableString,
  turnNumber: { type: 'integer', nullable: true },
  approval: {
    type: 'object',
    nullable: true,
    description:
      "The call the turn waits on, from the turn's memo (no worker needed); null for a turn parked before it when " +
      'its worker cannot be asked (see unavailable).',
    properties: {
      toolCode: approvalSchema.properties.toolCode,
      callIndex: approvalSchema.properties.callIndex,
      requestedAt: { ...nullableString, description: 'When the turn asked; null from a worker of an older build.' },
      expiresAt: approvalSchema.properties.expiresAt,
      decideWith: { ...approvalSchema.properties.decideWith, nullable: true },
    },
  },
  unavailable: unavailableProperty('approval'),
});

export const approvalQueueSchema = {
  ...turns,
  properties: {
    ...turns.properties,
    limit: { type: 'integer' },
    next: { ...nullableString, description: "The next page's `after`; null on the last page." },
  },
} as const;
