/**
 * Rows name intents and states that exist: a blank or unknown one is a violation, a disabled intent's row a
 * warning.
 */
import { at, itReportsExactly, type ValidateCase } from '../../../support/validate-cases';

const cases: ValidateCase[] = [
  {
    name: 'blank state on a tool',
    breakIt: (r) => void (at(r.mcpTools, 1).stateCode = ' '),
    violations: ['ce_mcp_tool[2]'],
    reason: /state_code is null\/blank/,
  },
  {
    name: 'blank intent on a rule',
    breakIt: (r) => void (at(r.rules, 0).intentCode = ''),
    violations: ['ce_rule[1]'],
    reason: /intent_code is null\/blank/,
  },
  {
    name: 'intent not in ce_intent',
    breakIt: (r) => void (at(r.responses, 0).intentCode = 'REFUND'),
    violations: ['ce_response[1]'],
    reason: /invalid intent_code=REFUND/,
    // GREETING is left without a response.
    warnings: ['ce_intent[GREETING]'],
  },
  {
    name: 'row of a disabled intent is only a warning',
    breakIt: (r) => void (at(r.mcpPlanners, 0).intentCode = 'RETIRED'),
    violations: [],
    warnings: ['ce_mcp_planner[1]'],
  },
  {
    name: 'state that no rule uses or sets',
    breakIt: (r) => void (at(r.responses, 0).stateCode = 'NOWHERE'),
    violations: ['ce_response[1]'],
    reason: /invalid state_code=NOWHERE/,
    // GREETING is left without a response in IDLE, which rule 1 sets.
    warnings: ['ce_rule[1]'],
  },
  {
    name: 'IDLE without any rule mentioning it (scenario 21)',
    breakIt: (r) => void (r.rules = r.rules.filter((x) => x.ruleId !== 1)),
    violations: ['ce_intent_classifier[1]', 'ce_response[1]'],
    reason: /invalid state_code=IDLE/,
  },
];

describe('validateConfig: intent and state scope (core/config/validation/scope-checks.ts)', () => {
  itReportsExactly(cases);
});
