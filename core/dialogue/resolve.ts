import type { DialogueActGuess, DialogueActSource } from './acts';

export type DialogueActMode = 'REGEX_ONLY' | 'REGEX_THEN_LLM' | 'LLM_ONLY';

export function needsLlm(mode: DialogueActMode, regex: DialogueActGuess, threshold: number): boolean {
  if (mode === 'REGEX_ONLY') return false;
  if (mode === 'LLM_ONLY') return true;
  return regex.confidence < threshold;
}

export interface DialogueActResolution {
  resolved: DialogueActGuess;
  source: DialogueActSource;
  llmCandidate: DialogueActGuess | null;
  guardApplied: boolean;
  guardReason: string | null;
}

/**
 * Chooses between the regex guess and the LLM candidate. A failed/invalid LLM answer falls back to
 * the regex guess; an LLM RESET that the RESET pattern does not confirm is overruled (a fresh
 * request must never wipe the conversation on a model's guess).
 */
export function resolveDialogueAct(
  regex: DialogueActGuess,
  llmCalled: boolean,
  llm: DialogueActGuess | null,
  textIsRegexReset: boolean
): DialogueActResolution {
  if (!llmCalled)
    return { resolved: regex, source: 'REGEX', llmCandidate: null, guardApplied: false, guardReason: null };
  if (!llm)
    return { resolved: regex, source: 'REGEX_FALLBACK', llmCandidate: null, guardApplied: false, guardReason: null };
  if (llm.act === 'RESET' && !textIsRegexReset) {
    return {
      resolved: regex,
      source: 'REGEX_GUARD',
      llmCandidate: llm,
      guardApplied: true,
      guardReason: 'REGEX_GUARD_RESET',
    };
  }
  return { resolved: llm, source: 'LLM', llmCandidate: llm, guardApplied: false, guardReason: null };
}
