/** An operator's decisions in request bodies: on an approval (D16) and on a held tool call (#22). */
import { APPROVAL_DECISIONS, DECISION_LIMITS, HELD_TOOL_ACTIONS } from '../../core/turn/operator-decision';

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
  description:
    'Who decides (a user or a tool), recorded as `decided_by`; `api` when absent. Not blank (`DECIDED_BY_BLANK`).',
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
