import { classifyDialogueActByRegex } from '../../../core/dialogue/regex-classifier';
import { isSensitive } from '../../../core/guardrail/gate';
import { classifyIntent } from '../../../core/intent/classifier';
import { blockingPolicy } from '../../../core/policy/match';
import { evaluateJsonPathRule } from '../../../core/rules/jsonpath';
import { evaluateRuleMatch } from '../../../core/rules/match';
import { USER_REGEX_MAX_TEXT } from '../../../core/text/regex';
import { classifierRow, intentRow, policyRow, ruleRow, snapshotOf } from '../../support/config-rows';

/**
 * No author pattern runs on text longer than USER_REGEX_MAX_TEXT. What that means is each matcher's to say, and
 * none may answer by accident: where a match refuses something (a policy, the guardrail) the over-long text is
 * refused, everywhere else it does not match.
 */
describe(`text longer than ${USER_REGEX_MAX_TEXT} characters`, () => {
  const longest = 'a'.repeat(USER_REGEX_MAX_TEXT);
  const over = longest + 'a';

  it('is blocked by a REGEX policy even though the pattern is not searched', () => {
    const snapshot = snapshotOf({ policies: [policyRow({ pattern: 'password', responseText: 'No.' })] });
    expect(blockingPolicy(snapshot, longest)).toBeUndefined();
    expect(blockingPolicy(snapshot, over)?.responseText).toBe('No.');
  });

  it('is judged by CONTAINS, STARTS_WITH and EXACT policies as any text is', () => {
    const contains = snapshotOf({
      policies: [policyRow({ ruleType: 'CONTAINS', pattern: 'password', responseText: 'x' })],
    });
    expect(blockingPolicy(contains, over)).toBeUndefined();
    expect(blockingPolicy(contains, over + 'password')).toBeDefined();
  });

  it('is sensitive for the guardrail when there is a pattern, and not when there is none', () => {
    expect(isSensitive(longest, ['delete account'])).toBe(false);
    expect(isSensitive(over, ['delete account'])).toBe(true);
    expect(isSensitive(over, [])).toBe(false);
  });

  it('matches no classifier, REGEX rule, dialogue-act pattern or JSONPath =~', () => {
    const snapshot = snapshotOf({
      intents: [intentRow('REFUND')],
      classifiers: [classifierRow({ intentCode: 'REFUND', pattern: 'a' })],
    });
    expect(classifyIntent(snapshot, longest).kind).toBe('MATCH');
    expect(classifyIntent(snapshot, over).kind).toBe('NO_MATCH');

    const rule = ruleRow({ action: 'SET_STATE', ruleType: 'REGEX', matchPattern: 'a' });
    const input = (userText: string) => ({ userText, facts: {}, context: {} });
    expect(evaluateRuleMatch(rule, input(longest))).toEqual({ matched: true });
    expect(evaluateRuleMatch(rule, input(over))).toEqual({ matched: false, reason: 'TYPE_CONDITION_NOT_MET' });

    const acts = { affirm: 'a+', negate: 'no', edit: 'edit', reset: 'reset', greeting: 'hi' };
    const state = { pendingClarification: false, intentLocked: false };
    expect(classifyDialogueActByRegex(longest, acts, state).act).toBe('AFFIRM');
    expect(classifyDialogueActByRegex(over, acts, state).act).toBe('NEW_REQUEST');

    const path = '$[?(@.text =~ /a+/)]';
    expect(evaluateJsonPathRule(path, [{ text: longest }])).toBe(true);
    expect(evaluateJsonPathRule(path, [{ text: over }])).toBe(false);
  });
});
