import { validateConfig, validateConfigPausing } from '../../../core/config/validate';
import { formatViolation } from '../../../core/config/types';
import { validBaseConfig } from '../../support/config-fixtures';
import { at, itReportsExactly, type ValidateCase } from '../../support/validate-cases';

const cases: ValidateCase[] = [
  {
    name: 'disabled rows are not validated',
    breakIt: (r) => {
      Object.assign(at(r.rules, 0), { ruleType: 'FOO', enabled: false });
      at(r.classifiers, 0).stateCode = 'UNKNOWN';
      at(r.responses, 0).stateCode = 'ANY';
    },
    violations: [],
  },
];

describe('validateConfig', () => {
  it('accepts the base config with no findings', () => {
    expect(validateConfig(validBaseConfig())).toEqual({ violations: [], warnings: [] });
  });

  itReportsExactly(cases);

  it('reports every problem at once, each as table[id]: reason', () => {
    const rows = validBaseConfig();
    at(rows.rules, 0).ruleType = 'FOO';
    at(rows.mcpTools, 1).stateCode = '';
    at(rows.classifiers, 0).pattern = '(';
    const lines = validateConfig(rows).violations.map(formatViolation);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ce_rule\[1\]: unknown rule_type "FOO"/),
        'ce_mcp_tool[2]: state_code is null/blank',
        expect.stringMatching(/^ce_intent_classifier\[1\]: pattern: invalid regular expression/),
      ])
    );
    expect(lines).toHaveLength(3);
  });
});

describe('validateConfigPausing', () => {
  it('finds what validateConfig finds, in the same order, pausing before each check', async () => {
    const rows = validBaseConfig();
    Object.assign(at(rows.rules, 0), { ruleType: 'FOO' });
    at(rows.responses, 0).stateCode = ' ';
    let pauses = 0;
    const found = await validateConfigPausing(rows, () => ((pauses += 1), Promise.resolve()));
    expect(found).toEqual(validateConfig(rows));
    expect(found.violations.length).toBeGreaterThan(1);
    expect(pauses).toBeGreaterThan(10);
  });
});
