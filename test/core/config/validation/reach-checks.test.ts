import { validateConfig } from '../../../../core/config/validate';
import { formatViolation, type ConfigRows } from '../../../../core/config/types';
import { classifier, intent, response, rule } from '../../../../db/seed/builders';
import { packConfigRows } from '../../../../db/seed/merge';
import { SEED_PACKS } from '../../../../db/seed/packs';
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

  it('names the classifier that sets a state, unless a rule of that state surely moves the session on', () => {
    const setBy = (moveOn?: { ruleType: string; matchPattern: string; phase: string }) =>
      findings((r) => {
        faqResponse(r).stateCode = 'IDLE';
        r.classifiers.push(
          classifier({ classifierId: 7, intentCode: 'FAQ', stateCode: 'UNKNOWN', ruleType: 'CONTAINS', pattern: 'faq' })
        );
        if (moveOn) r.rules.push({ ...escalate(11, 'FAQ'), stateCode: 'UNKNOWN', actionValue: 'IDLE', ...moveOn });
      }).warnings;
    const warning =
      'ce_intent_classifier[7]: the classifier sets UNKNOWN, and no enabled ce_response admits intent FAQ in state UNKNOWN (ANY admitting any): a turn that ends there fails with RESPONSE_MAPPING_NOT_FOUND';
    expect(setBy()).toEqual([warning]);
    // A classifier match runs POST_CLASSIFIER_INTENT and POST_AGENT_INTENT rules; every turn runs PRE_AGENT_MCP and
    // PRE_RESPONSE_RESOLUTION ones.
    for (const phase of ['POST_CLASSIFIER_INTENT', 'POST_AGENT_INTENT', 'PRE_AGENT_MCP', 'PRE_RESPONSE_RESOLUTION'])
      expect(setBy({ ruleType: 'REGEX', matchPattern: '.*', phase })).toEqual([]);
    expect(setBy({ ruleType: 'EXACT', matchPattern: 'any', phase: 'PRE_RESPONSE_RESOLUTION' })).toEqual([]);
    // Only on "escalate"; before the classifier; in a phase some turns skip.
    expect(setBy({ ruleType: 'EXACT', matchPattern: 'escalate', phase: 'PRE_RESPONSE_RESOLUTION' })).toEqual([warning]);
    expect(setBy({ ruleType: 'REGEX', matchPattern: '.*', phase: 'POST_DIALOGUE_ACT' })).toEqual([warning]);
    expect(setBy({ ruleType: 'REGEX', matchPattern: '.*', phase: 'POST_AGENT_MCP' })).toEqual([warning]);
  });
});

/**
 * The loan pack's shape: rule 130 (POST_SCHEMA_EXTRACTION) moves ELIGIBILITY_GATE to CONFIRMATION, and rule 131
 * (PRE_AGENT_MCP) leaves CONFIRMATION only once the user confirmed. Without a CONFIRMATION response the turn that
 * completes the schema fails: 131 being written for CONFIRMATION does not make it a waypoint.
 */
describe('a state that a rule leaves only on some turns, or not after the rule that enters it', () => {
  const gate = (leave: Partial<Parameters<typeof rule>[0]>, enter: Partial<Parameters<typeof rule>[0]> = {}) =>
    findings((r) => {
      r.intents.push(intent({ intentCode: 'LOAN', description: 'Loan' }));
      r.responses.push(
        response({
          responseId: 30,
          intentCode: 'LOAN',
          stateCode: 'ELIGIBILITY_GATE',
          responseType: 'EXACT',
          exactText: 'g',
        }),
        response({ responseId: 31, intentCode: 'LOAN', stateCode: 'PROCESS', responseType: 'EXACT', exactText: 'p' })
      );
      r.rules.push(
        rule({
          ruleId: 130,
          phase: 'POST_SCHEMA_EXTRACTION',
          intentCode: 'LOAN',
          stateCode: 'ELIGIBILITY_GATE',
          ruleType: 'JSON_PATH',
          matchPattern: '$[?(@.schemaComplete == true)]',
          action: 'SET_STATE',
          actionValue: 'CONFIRMATION',
          ...enter,
        }),
        rule({
          ruleId: 131,
          phase: 'PRE_AGENT_MCP',
          intentCode: 'LOAN',
          stateCode: 'CONFIRMATION',
          ruleType: 'JSON_PATH',
          matchPattern: "$[?(@.inputParams.routing_decision == 'PROCEED_CONFIRMED')]",
          action: 'SET_STATE',
          actionValue: 'PROCESS',
          ...leave,
        })
      );
    }).warnings;
  const warning =
    'ce_rule[130]: SET_STATE sets CONFIRMATION, and no enabled ce_response admits intent LOAN in state CONFIRMATION (ANY admitting any): a turn that ends there fails with RESPONSE_MAPPING_NOT_FOUND';
  const always = { ruleType: 'REGEX', matchPattern: '.*' };

  it('warns when the rule that leaves it matches only on some turns', () => {
    expect(gate({})).toEqual([warning]);
    expect(gate({ ruleType: 'REGEX', matchPattern: '(?i)yes' })).toEqual([warning]);
    // `$` and `\b` can fail where the empty text matched; a blank pattern never matches.
    for (const matchPattern of ['.*$', '\\b', '^$', ' ', 'x*\\z'])
      expect(gate({ ruleType: 'REGEX', matchPattern })).toEqual([warning]);
  });

  it('does not warn when a rule always leaves it later in the same turn', () => {
    for (const leave of [
      always,
      { ruleType: 'REGEX', matchPattern: '^' },
      { ruleType: 'REGEX', matchPattern: '(?s)[\\s\\S]*' },
      { ruleType: 'EXACT', matchPattern: ' ANY ' },
      { ruleType: 'JSON_PATH', matchPattern: '$' },
      { ...always, phase: 'PRE_RESPONSE_RESOLUTION' },
      { ...always, intentCode: 'ANY' },
      // The phase's next pass starts in CONFIRMATION.
      { ...always, phase: 'POST_SCHEMA_EXTRACTION' },
    ])
      expect(gate(leave)).toEqual([]);
  });

  it('warns when that rule runs before the entering one, in a phase some turns skip, or stays in the state', () => {
    expect(gate({ ...always, phase: 'POST_DIALOGUE_ACT' })).toEqual([warning]);
    expect(gate({ ...always, phase: 'POST_AGENT_MCP' })).toEqual([warning]);
    expect(gate({ ...always, phase: 'POST_TOOL_EXECUTION' })).toEqual([warning]);
    expect(gate({ ...always, actionValue: 'CONFIRMATION' })).toEqual([warning]);
    expect(gate({ ...always, stateCode: 'ANY' })).toEqual([warning]);
    expect(gate({ ...always, enabled: false })).toEqual([warning]);
  });

  it('counts the same phase only when the entering rule is written for another state', () => {
    const samePhase = { ...always, phase: 'POST_SCHEMA_EXTRACTION' };
    // Written for ANY (or blank) it fires again after 131 in CONFIRMATION's pass, which then ends where it began.
    expect(gate(samePhase, { stateCode: 'ANY' })).toEqual([warning]);
    expect(gate(samePhase, { stateCode: '' })).toEqual([warning]);
    expect(gate({ ...always, phase: 'PRE_RESPONSE_RESOLUTION' }, { stateCode: 'ANY' })).toEqual([]);
  });

  it('needs a way on after every row that enters the state', () => {
    const warnings = findings((r) => {
      r.intents.push(intent({ intentCode: 'LOAN', description: 'Loan' }));
      r.responses.push(
        response({ responseId: 31, intentCode: 'LOAN', stateCode: 'PROCESS', responseType: 'EXACT', exactText: 'p' })
      );
      const set = (ruleId: number, phase: string, stateCode: string, actionValue: string) =>
        rule({ ruleId, phase, intentCode: 'LOAN', stateCode, ...always, action: 'SET_STATE', actionValue });
      r.rules.push(
        set(140, 'POST_DIALOGUE_ACT', 'IDLE', 'CONFIRMATION'),
        set(141, 'PRE_AGENT_MCP', 'CONFIRMATION', 'PROCESS'),
        set(142, 'PRE_RESPONSE_RESOLUTION', 'PROCESS', 'CONFIRMATION')
      );
    }).warnings;
    expect(warnings).toEqual([
      expect.stringMatching(
        /^ce_rule\[142\]: SET_STATE sets CONFIRMATION, and no enabled ce_response admits intent LOAN/
      ),
    ]);
  });
});

describe('the seed packs', () => {
  const seedFindings = (breakIt: (rows: ConfigRows) => void = () => undefined) => {
    const rows = packConfigRows(SEED_PACKS);
    breakIt(rows);
    return validateConfig(rows).warnings.map(formatViolation);
  };

  it('validate without a warning of an unanswered state', () => {
    expect(seedFindings().filter((w) => w.includes('RESPONSE_MAPPING_NOT_FOUND'))).toEqual([]);
  });

  it('warn of rule 130 when the only CONFIRMATION response of LOAN_APPLICATION (225) goes', () => {
    const warnings = seedFindings((rows) => {
      rows.responses = rows.responses.filter((r) => r.responseId !== 225);
    });
    expect(warnings.filter((w) => w.includes('RESPONSE_MAPPING_NOT_FOUND'))).toEqual([
      'ce_rule[130]: SET_STATE sets CONFIRMATION, and no enabled ce_response admits intent LOAN_APPLICATION in state CONFIRMATION (ANY admitting any): a turn that ends there fails with RESPONSE_MAPPING_NOT_FOUND',
    ]);
  });
});
