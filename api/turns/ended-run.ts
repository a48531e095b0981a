/**
 * How a turn that ended without its answer reads, wherever the API shows it: the POST's reply and its replays
 * (outcome.ts, replies.ts) and GET /conversation/{id}'s lastTurn (turn-ended.ts). A leaf: replies.ts reads it too.
 */

/** How the API shows a turn that ended without its answer: its failure type, and whether a retry may succeed. */
export interface TurnFailure {
  type: string;
  message: string;
  retryable: boolean;
}

/**
 * A turn whose workflow closed without completing or failing on its own: cancelled, terminated or timed out in
 * Temporal, continued as new, or gone from it. Named `TURN_<Temporal status>` everywhere (the POST's reply, GET
 * /conversation/{id}'s lastTurn, api/turns/turn-ended.ts), and not retryable: an operator may have ended it on purpose.
 */
export function endedRunFailure(status: string): TurnFailure {
  const how = status.toLowerCase().replace(/_/g, ' ');
  return { type: `TURN_${status}`, message: `The turn's workflow was ${how} in Temporal.`, retryable: false };
}

/** The ends an operator chooses (`temporal workflow cancel`, `terminate`): the API answers them 409, not as a fault. */
export const OPERATOR_ENDED_TYPES: ReadonlySet<string> = new Set(['TURN_CANCELLED', 'TURN_TERMINATED']);
