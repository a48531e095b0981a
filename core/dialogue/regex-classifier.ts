import { matchesUserRegexEntire } from '../rules/regex-cache';
import type { DialogueActGuess } from './acts';
import { javaTrim } from '../text/java-trim';

export interface DialogueActPatterns {
  affirm: string;
  negate: string;
  edit: string;
  reset: string;
  greeting: string;
}

export interface RegexClassifierState {
  pendingClarification: boolean;
  intentLocked: boolean;
}

const guess = (act: DialogueActGuess['act'], confidence: number): DialogueActGuess => ({
  act,
  confidence,
  standaloneQuery: null,
});

/**
 * The deterministic first pass (§5.6): whole-message patterns, then a trailing `?` (QUESTION),
 * then a short reply while something is pending (ANSWER), else NEW_REQUEST.
 */
export function classifyDialogueActByRegex(
  rawText: string,
  patterns: DialogueActPatterns,
  state: RegexClassifierState
): DialogueActGuess {
  const text = javaTrim(rawText);
  if (text === '') return guess('NEW_REQUEST', 0.4);
  const ordered: [DialogueActGuess['act'], string][] = [
    ['AFFIRM', patterns.affirm],
    ['NEGATE', patterns.negate],
    ['EDIT', patterns.edit],
    ['RESET', patterns.reset],
    ['GREETING', patterns.greeting],
  ];
  for (const [act, pattern] of ordered) if (matchesUserRegexEntire(pattern, text)) return guess(act, 0.95);
  if (text.endsWith('?')) return guess('QUESTION', 0.7);
  if ((state.pendingClarification || state.intentLocked) && text.length <= 80 && !text.includes('?')) {
    return guess('ANSWER', 0.75);
  }
  return guess('NEW_REQUEST', 0.7);
}
