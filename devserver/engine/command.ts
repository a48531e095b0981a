/** A workflow task command as decoded from the wire, and what validation says about one. */
import type { Message } from '../proto/types';

export interface Command {
  commandType?: number;
  [attributes: string]: unknown;
}

/** Why a command is refused: the workflow task fails with this cause and message. */
export interface CommandProblem {
  cause: number;
  message: string;
}

/** The attribute field of a command, e.g. `startTimerCommandAttributes`. */
export function commandAttributes(command: Command): Message {
  for (const key in command) {
    if (key.endsWith('CommandAttributes')) return (command[key] ?? {}) as Message;
  }
  return {};
}
