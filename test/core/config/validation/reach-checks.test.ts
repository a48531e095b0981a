import { validateConfig } from '../../../../core/config/validate';
import { formatViolation, type ConfigRows } from '../../../../core/config/types';
import { classifier, intent, response, rule } from '../../../../db/seed/builders';
import { validBaseConfig } from '../../../support/config-fixtures';

const findings = (breakIt: (rows: ConfigRows) => void) => {
  const rows = validBaseConfig();
  breakIt(rows);
  const result = validateConfig(rows);
  return { violations: result.violations.map(formatViolation), warnings: result.warnings.map(formatViolation) };
};

const escalate = (ruleId: number, intentCode: string) =>
  rule({
    ruleId,
    intentCode,
    stateCode: 'ANY',
    ruleType: 'EXACT',
    matchPattern: 'escalate',
    action: 'SET_STATE',
    actionValue: 'ESCALATED',
  });

function faqResponse(r: ConfigRows) {
  const found = r.responses.find((x) => x.intentCode === 'FAQ');
  if (!found) throw new Error('no FAQ response');
  return found;
}

describe('intents and states that no ce_response answers (RESPONSE_MAPPING_NOT_FOUND)', () => {
  it('warns of an enabled intent without any response, and of a state a rule sets that its intent has none for', () => {
    const { violations, warnings } = findings((r) => {
      r.intents.push(intent({ intentCode: 'BILLING', description: 'Billing' }));
      r.rules.push(escalate(9, 'FAQ'), escalate(10, 'BILLING'));
      faqResponse(r).stateCode = 'IDLE';
    });
    expect(violations).toEqual([]);
    expect(warnings).toEqual([
      'ce_intent[BILLING]: no enabled ce_response has intent_code BILLING or ANY: a turn that resolves to it fails with RESPONSE_MAPPING_NOT_FOUND',
      // BILLING is named once, above; FAQ answers IDLE only.
      'ce_rule[9]: SET_STATE sets ESCALATED, and no enabled ce_response admits intent FAQ in state ESCALATED (ANY admitting any): a turn that ends there fails with RESPONSE_MAPPING_NOT_FOUND',
    ]);
  });

  it('counts ANY rows as the engine does, and not disabled rows or those of reserved states', () => {
    expect(
      findings((r) => {
        r.intents.push(intent({ intentCode: 'BILLING', description: 'Billing' }));
        r.rules.push(escalate(9, 'ANY'));
        r.responses.push(
          response({ responseId: 20, intentCode: 'ANY', stateCode: 'ANY', responseType: 'EXACT', exactText: 'Hm.' })
        );
      }).warnings
    ).toEqual([]);
    const { warnings } = findings((r) => {
      r.intents.push(intent({ intentCode: 'BILLING', description: 'Billing' }));
      r.rules.push(escalate(9, 'ANY'));
      r.responses.push(
        response({
          responseId: 21,
          intentCode: 'BILLING',
          stateCode: 'ESCALATED',
          responseType: 'EXACT',
          exactText: 'x',
          enabled: false,
        }),
        response({
          responseId: 22,
          intentCode: 'BILLING',
          stateCode: 'TURN_FAILED',
          responseType: 'EXACT',
          exactText: 'x',
        })
      );
    });
    expect(warnings).toEqual([expect.stringMatching(/^ce_intent\[BILLING\]: no enabled ce_response/)]);
  });

  it('names the classifier that sets a state, unless a rule of that state moves the session on', () => {
    const setBy = (moveOn: boolean) =>
      findings((r) => {
        faqResponse(r).stateCode = 'IDLE';
        r.classifiers.push(
          classifier({ classifierId: 7, intentCode: 'FAQ', stateCode: 'UNKNOWN', ruleType: 'CONTAINS', pattern: 'faq' })
        );
        if (moveOn) r.rules.push({ ...escalate(11, 'FAQ'), stateCode: 'UNKNOWN', actionValue: 'IDLE' });
      }).warnings;
    expect(setBy(false)).toEqual([
      'ce_intent_classifier[7]: the classifier sets UNKNOWN, and no enabled ce_response admits intent FAQ in state UNKNOWN (ANY admitting any): a turn that ends there fails with RESPONSE_MAPPING_NOT_FOUND',
    ]);
    expect(setBy(true)).toEqual([]);
  });
});
