import fc from 'fast-check';
import { resetReason } from '../../../core/conversation/reset';
import { classifyDialogueActByRegex } from '../../../core/dialogue/regex-classifier';
import { classifierMatches } from '../../../core/intent/classifier';
import { evaluateRuleMatch } from '../../../core/rules/match';
import { javaTrim } from '../../../core/text/java-trim';
import { classifierRow, ruleRow } from '../../support/config-rows';
import { DEFAULT_DIALOGUE_ACT_PATTERNS } from '../../support/dialogue-patterns';

/** Java's String.trim() as its Javadoc states it: the longest substring without a code unit <= U+0020 at either end. */
function javaSpecTrim(text: string): string {
  const units = text.split('');
  const kept = (unit: string): boolean => unit > ' ';
  const first = units.findIndex(kept);
  const last = units.length - [...units].reverse().findIndex(kept);
  return first < 0 ? '' : units.slice(first, last).join('');
}

const exactRule = (pattern: string) => ruleRow({ action: 'SET_STATE', ruleType: 'EXACT', matchPattern: pattern });
const matchesExact = (pattern: string, userText: string): boolean =>
  evaluateRuleMatch(exactRule(pattern), { userText, facts: {}, context: {} }).matched;

describe("javaTrim (core/text/java-trim.ts): Java's String.trim()", () => {
  it('strips what Java strips and nothing else', () => {
    const unit = fc.constantFrom('a', ' ', '\t', '\n', '\u0000', '\u0007', '\u001f', '\u00a0', '\u2028', '\u3000', 'é');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (units) => {
        const text = units.join('');
        expect(javaTrim(text)).toBe(javaSpecTrim(text));
      }),
      { numRuns: 2000 }
    );
  });

  it('an EXACT rule or classifier keeps a trailing no-break or ideographic space and drops controls', () => {
    expect(matchesExact('yes', 'yes\u00a0')).toBe(false);
    expect(matchesExact('yes', '\u3000yes')).toBe(false);
    expect(matchesExact('yes', '\u0007 yes\t\n')).toBe(true);
    expect(matchesExact(' Yes\u0000', 'YES')).toBe(true);
    const classifier = classifierRow({ ruleType: 'EXACT', pattern: 'cancel', intentCode: 'CANCEL' });
    expect(classifierMatches(classifier, 'cancel\u00a0')).toBe(false);
    expect(classifierMatches(classifier, '\u0001cancel\r\n')).toBe(true);
  });

  it('the reset commands and the dialogue-act patterns read the text trimmed the same way', () => {
    expect(resetReason({}, false, '\u0007/reset\n')).toBe('USER_TEXT_COMMAND');
    expect(resetReason({}, false, 'reset\u00a0')).toBeNull();
    const patterns = DEFAULT_DIALOGUE_ACT_PATTERNS;
    const idle = { pendingClarification: false, intentLocked: false };
    expect(classifyDialogueActByRegex('\u0000yes\u001f', patterns, idle).act).toBe('AFFIRM');
    expect(classifyDialogueActByRegex('yes\u2028', patterns, idle).act).toBe('NEW_REQUEST');
  });
});
