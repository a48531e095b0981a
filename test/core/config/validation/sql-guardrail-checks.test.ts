import { at, itReportsExactly, type ValidateCase } from '../../../support/validate-cases';

const cases: ValidateCase[] = [
  {
    name: 'an ALLOW_FUNCTION row naming a function that is never allowed is a warning: it has no effect',
    breakIt: (r) =>
      void Object.assign(at(r.sqlGuardrails, 0), { ruleType: 'ALLOW_FUNCTION', matchValue: 'pg_catalog.pg_sleep' }),
    violations: [],
    warnings: ['ce_mcp_sql_guardrail[1]'],
  },
  {
    name: 'unknown SQL guardrail rule type',
    breakIt: (r) => void (at(r.sqlGuardrails, 0).ruleType = 'ALLOW_KEYWORD'),
    violations: ['ce_mcp_sql_guardrail[1]'],
    reason: /rule_type "ALLOW_KEYWORD"/,
  },
];

describe('validateConfig: SQL guardrail rows (core/config/validation/sql-guardrail-checks.ts)', () => {
  itReportsExactly(cases);
});
