import { readDialogueActAnswer, dialogueActSchema } from '../../../core/dialogue/llm-contract';
import { classifyDialogueActByRegex } from '../../../core/dialogue/regex-classifier';
import { needsLlm, resolveDialogueAct } from '../../../core/dialogue/resolve';
import { DEFAULT_DIALOGUE_ACT_PATTERNS } from '../../support/dialogue-patterns';

const patterns = DEFAULT_DIALOGUE_ACT_PATTERNS;
const idle = { pendingClarification: false, intentLocked: false };

describe('dialogue act regex pass (§5.6)', () => {
  it.each([
    ['yes', 'AFFIRM', 0.95],
    ['  Go Ahead ', 'AFFIRM', 0.95],
    ['approved', 'AFFIRM', 0.95],
    ["don't", 'NEGATE', 0.95],
    ['update', 'EDIT', 0.95],
    ['start over', 'RESET', 0.95],
    ['good morning', 'GREETING', 0.95],
    ['What is X?', 'QUESTION', 0.7],
    ['I want a loan', 'NEW_REQUEST', 0.7],
    ['', 'NEW_REQUEST', 0.4],
  ])('"%s" → %s (%s)', (text, act, confidence) => {
    expect(classifyDialogueActByRegex(text, patterns, idle)).toEqual({ act, confidence, standaloneQuery: null });
  });

  it('a short reply while something is pending is an ANSWER; a long one or a question is not', () => {
    const pending = { pendingClarification: true, intentLocked: false };
    expect(classifyDialogueActByRegex('FAILED', patterns, pending).act).toBe('ANSWER');
    expect(
      classifyDialogueActByRegex('customer 1234', patterns, { pendingClarification: false, intentLocked: true }).act
    ).toBe('ANSWER');
    expect(classifyDialogueActByRegex('x'.repeat(81), patterns, pending).act).toBe('NEW_REQUEST');
    expect(classifyDialogueActByRegex('which one?', patterns, pending).act).toBe('QUESTION');
  });
});

describe('dialogue act resolution', () => {
  const regex = { act: 'NEW_REQUEST' as const, confidence: 0.7, standaloneQuery: null };
  it('asks the LLM by mode and threshold', () => {
    expect(needsLlm('REGEX_ONLY', regex, 0.9)).toBe(false);
    expect(needsLlm('LLM_ONLY', { ...regex, confidence: 0.99 }, 0.9)).toBe(true);
    expect(needsLlm('REGEX_THEN_LLM', regex, 0.9)).toBe(true);
    expect(needsLlm('REGEX_THEN_LLM', { ...regex, confidence: 0.9 }, 0.9)).toBe(false);
  });

  it('regex when not asked, fallback on a failed answer, guard on an unconfirmed RESET, else the LLM', () => {
    expect(resolveDialogueAct(regex, false, null, false).source).toBe('REGEX');
    expect(resolveDialogueAct(regex, true, null, false)).toMatchObject({ source: 'REGEX_FALLBACK', resolved: regex });
    const reset = { act: 'RESET' as const, confidence: 0.9, standaloneQuery: null };
    expect(resolveDialogueAct(regex, true, reset, false)).toMatchObject({
      source: 'REGEX_GUARD',
      guardApplied: true,
      guardReason: 'REGEX_GUARD_RESET',
      resolved: regex,
      llmCandidate: reset,
    });
    expect(resolveDialogueAct(regex, true, reset, true)).toMatchObject({ source: 'LLM', resolved: reset });
  });

  it('reads the LLM answer; unknown acts are no answer; rewrite mode requires the standalone query', () => {
    expect(readDialogueActAnswer({ dialogueAct: 'edit', confidence: 1.7, standaloneQuery: ' ' })).toEqual({
      act: 'EDIT',
      confidence: 1,
      standaloneQuery: null,
    });
    expect(readDialogueActAnswer({ dialogueAct: 'SHOUT', confidence: 1 })).toBeNull();
    expect(readDialogueActAnswer('AFFIRM')).toBeNull();
    expect(dialogueActSchema(true)['required']).toEqual(['dialogueAct', 'confidence', 'standaloneQuery']);
  });
});
