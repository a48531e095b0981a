import { validateConfig } from '../../../../core/config/validate';
import { formatViolation } from '../../../../core/config/types';
import { configSetting } from '../../../../db/seed/builders';
import { validBaseConfig } from '../../../support/config-fixtures';
import { itReportsExactly, type ValidateCase } from '../../../support/validate-cases';

describe('audit policy warnings (core/config/validation/audit-checks.ts)', () => {
  const warningsWith = (...settings: [string, string][]) => {
    const rows = validBaseConfig();
    settings.forEach(([configKey, configValue], i) =>
      rows.configs.push(configSetting({ configId: 80 + i, configType: 'AuditService', configKey, configValue }))
    );
    const result = validateConfig(rows);
    expect(result.violations).toEqual([]);
    return result.warnings.map(formatViolation);
  };

  it('names what each reader of the trail loses', () => {
    expect(warningsWith(['LEVEL', 'ERROR_ONLY'], ['PERSIST_META', 'no'])).toEqual([
      expect.stringMatching(/^ce_config\[80\]: .*leaves out USER_INPUT rows: the what-if replay skips turns/),
      expect.stringMatching(/^ce_config\[80\]: .*leaves out STEP_EXIT rows: the trace view shows no step durations/),
      expect.stringMatching(
        /^ce_config\[81\]: AuditService.PERSIST_META=false: the what-if replay gets no input params/
      ),
    ]);
  });

  it('STANDARD costs the step durations only; an intent filter costs a first turn its USER_INPUT', () => {
    expect(warningsWith(['LEVEL', 'STANDARD'])).toEqual([expect.stringMatching(/leaves out STEP_EXIT rows/)]);
    expect(warningsWith(['INCLUDE_INTENTS', 'LOAN_*'])).toEqual([
      expect.stringMatching(/^ce_config\[80\]: .*leaves out USER_INPUT rows/),
      expect.stringMatching(/^ce_config\[80\]: .*leaves out STEP_EXIT rows/),
    ]);
  });

  it('a disabled row sets nothing, and so warns of nothing', () => {
    const rows = validBaseConfig();
    rows.configs.push(
      configSetting({
        configId: 90,
        configType: 'AuditService',
        configKey: 'ENABLED',
        configValue: 'false',
        enabled: false,
      })
    );
    expect(validateConfig(rows).warnings).toEqual([]);
  });
});

const cases: ValidateCase[] = [
  {
    name: 'an audit policy that keeps what the trail readers need is accepted without a word',
    breakIt: (r) =>
      r.configs.push(
        configSetting({ configId: 70, configType: 'AuditService', configKey: 'EXCLUDE_STAGES', configValue: 'MCP_*' })
      ),
    violations: [],
  },
  {
    name: 'an audit policy that drops USER_INPUT, STEP_EXIT and _meta is accepted, with a warning for each',
    breakIt: (r) =>
      r.configs.push(
        configSetting({ configId: 71, configType: 'AuditService', configKey: 'LEVEL', configValue: 'error_only' }),
        configSetting({ configId: 72, configType: 'AuditService', configKey: 'PERSIST_META', configValue: 'false' })
      ),
    violations: [],
    warnings: ['ce_config[71]', 'ce_config[72]'],
  },
  {
    name: 'an audit policy value that does not parse is a violation, and no warning',
    breakIt: (r) =>
      r.configs.push(
        configSetting({ configId: 73, configType: 'AuditService', configKey: 'LEVEL', configValue: 'LOUD' }),
        configSetting({ configId: 74, configType: 'AuditService', configKey: 'PERSIST_META', configValue: 'false' })
      ),
    violations: ['ce_config[73]'],
    reason: /AuditService\.LEVEL must be one of ALL, STANDARD, ERROR_ONLY, NONE/,
  },
];

describe('validateConfig: audit policy values (core/config/validation/audit-checks.ts)', () => {
  itReportsExactly(cases);
});
