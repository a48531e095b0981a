import { turnIdFor } from './contracts';

/** A conversation id: a UUID, in either case as clients send it (conversations are named by its lower-case form). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/**
 * A turn number as a turn id spells it: 1 to 999999999, written without a leading zero, so that it names one turn
 * (ce_* turn numbers are 32-bit integers). `turn-…-99999999999999999999` would otherwise go through a double.
 */
export const TURN_NUMBER_PATTERN = '[1-9][0-9]{0,8}';

/** A turn's workflow id as a caller may write it: `turn-<conversation id, either case>-<turn number>`. */
export const TURN_ID = new RegExp(`^turn-(${UUID_PATTERN.slice(1, -1)})-(${TURN_NUMBER_PATTERN})$`);

export interface TurnIdParts {
  /** The conversation's UUID as `text` wrote it (an error quotes it so). */
  uuid: string;
  /** The conversation id as conversations and their turn workflows are named: the UUID in lower case. */
  conversationId: string;
  turnNumber: number;
}

/** What a turn id names; null when `text` is none. */
export function turnIdParts(text: string): TurnIdParts | null {
  const match = TURN_ID.exec(text);
  if (!match?.[1] || !match[2]) return null;
  return { uuid: match[1], conversationId: match[1].toLowerCase(), turnNumber: Number(match[2]) };
}

/**
 * The workflow id of the turn `text` names (`turn-<lower-case uuid>-<n>`): the API's routes and `convengine history`
 * take the UUID in either case. Null when `text` is not a turn id.
 */
export function canonicalTurnId(text: string): string | null {
  const parts = turnIdParts(text);
  return parts ? turnIdFor(parts.conversationId, parts.turnNumber) : null;
}
