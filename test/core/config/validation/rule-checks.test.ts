/**
 * A rule's match pattern compiles without backtracking, its type, phase and action are known, and its action value
 * parses.
 */
import { rule } from '../../../../db/seed/builders';
import { at, itReportsExactly, type ValidateCase } from '../../../support/validate-cases';

const cases: ValidateCase[] = [
  {
    name: 'invalid rule regex',
    breakIt: (r) => void (at(r.rules, 0).matchPattern = '(unclosed'),
    violations: ['ce_rule[1]'],
    reason: /invalid regular expression/,
  },
  {
    name: 'a rule regex with a lookahead, which only a backtracking matcher can run',
    breakIt: (r) => void (at(r.rules, 0).matchPattern = '(?i)^(?!.*thanks).*refund'),
    violations: ['ce_rule[1]'],
    reason: /match_pattern: regular expression ".*" uses a lookahead, .*; rewrite it without/,
  },
  {
    name: 'invalid JSONPath',
    breakIt: (r) => void (at(r.rules, 2).matchPattern = 'bad((('),
    violations: ['ce_rule[3]'],
    reason: /invalid JSONPath/,
  },
  {
    name: 'unknown rule type',
    breakIt: (r) => void (at(r.rules, 0).ruleType = 'FOO'),
    violations: ['ce_rule[1]'],
    reason: /unknown rule_type "FOO"/,
  },
  {
    name: 'unknown action',
    breakIt: (r) => void (at(r.rules, 2).action = 'SET_MOOD'),
    violations: ['ce_rule[3]'],
    reason: /unknown action "SET_MOOD"/,
  },
  {
    name: 'unknown phase',
    breakIt: (r) =>
      r.rules.push(
        rule({
          ruleId: 7,
          phase: 'AFTER_LUNCH',
          intentCode: 'FAQ',
          stateCode: 'IDLE',
          ruleType: 'EXACT',
          matchPattern: 'ANY',
          action: 'SET_STATE',
          actionValue: 'IDLE',
        })
      ),
    violations: ['ce_rule[7]'],
    reason: /unknown phase "AFTER_LUNCH"/,
  },
  {
    name: 'legacy phase AGENT_POST_MCP is accepted (D3)',
    breakIt: (r) =>
      r.rules.push(
        rule({
          ruleId: 8,
          phase: 'AGENT_POST_MCP',
          intentCode: 'FAQ',
          stateCode: 'IDLE',
          ruleType: 'JSON_PATH',
          matchPattern: '$.mcp.finalAnswer',
          action: 'SET_STATE',
          actionValue: 'IDLE',
        })
      ),
    violations: [],
  },
  {
    name: 'SET_INPUT_PARAM that looks like JSON but does not parse',
    breakIt: (r) => void (at(r.rules, 2).actionValue = '{"awaiting_confirmation":'),
    violations: ['ce_rule[3]'],
    reason: /looks like JSON but does not parse/,
  },
  {
    name: 'SET_DIALOGUE_ACT with an unknown act',
    breakIt: (r) => Object.assign(at(r.rules, 2), { action: 'SET_DIALOGUE_ACT', actionValue: 'SHRUG' }),
    violations: ['ce_rule[3]'],
    reason: /not a dialogue act/,
  },
  {
    name: 'SET_STATE without a target',
    breakIt: (r) => void (at(r.rules, 3).actionValue = ''),
    violations: ['ce_rule[4]', 'ce_response[3]', 'ce_prompt_template[2]'],
  },
];

describe('validateConfig: rules (core/config/validation/rule-checks.ts)', () => {
  itReportsExactly(cases);
});
