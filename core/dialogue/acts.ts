import { DIALOGUE_ACTS, type DialogueAct } from '../config/vocabulary';

export type { DialogueAct };

export function parseDialogueAct(raw: unknown): DialogueAct | null {
  if (typeof raw !== 'string') return null;
  const act = raw.trim().toUpperCase();
  return (DIALOGUE_ACTS as readonly string[]).includes(act) ? (act as DialogueAct) : null;
}

/** The act stored in input params; anything unreadable counts as NEW_REQUEST (as in the Java engine). */
export function currentDialogueAct(raw: unknown): DialogueAct {
  return parseDialogueAct(raw) ?? 'NEW_REQUEST';
}

export type DialogueActSource = 'REGEX' | 'LLM' | 'REGEX_FALLBACK' | 'REGEX_GUARD';

export interface DialogueActGuess {
  act: DialogueAct;
  confidence: number;
  standaloneQuery: string | null;
}
