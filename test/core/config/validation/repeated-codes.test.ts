import { validateConfig } from '../../../../core/config/validate';
import { formatViolation, type ConfigRows } from '../../../../core/config/types';
import { configSetting, intent, mcpTool } from '../../../../db/seed/builders';
import { validBaseConfig } from '../../../support/config-fixtures';

const findings = (breakIt: (rows: ConfigRows) => void) => {
  const rows = validBaseConfig();
  breakIt(rows);
  const result = validateConfig(rows);
  return { violations: result.violations.map(formatViolation), warnings: result.warnings.map(formatViolation) };
};

describe('codes the engine matches case-insensitively', () => {
  it('refuses two enabled intents whose codes differ only in case: the engine knows them as one', () => {
    const { violations, warnings } = findings((r) => r.intents.push(intent({ intentCode: 'faq', description: 'Dup' })));
    expect(violations).toEqual([
      'ce_intent[faq]: intent_code faq is the same intent as FAQ (codes are matched trimmed and upper-cased): keep one row',
    ]);
    expect(warnings).toEqual(['ce_intent[faq]: intent codes are matched upper-cased; store them upper-case']);
  });

  it('lets a disabled one stand beside the enabled one (it is never in force), which stays the one rows refer to', () => {
    const { violations, warnings } = findings((r) => {
      r.intents.unshift(intent({ intentCode: 'Faq', description: 'Old', enabled: false }));
      r.intents.push(intent({ intentCode: ' faq ', description: 'Older', enabled: false }));
    });
    expect(violations).toEqual([]);
    // Rows scoped to FAQ are not "of a disabled intent": the enabled FAQ is the one in force.
    expect(warnings).toEqual([
      'ce_intent[Faq]: intent codes are matched upper-cased; store them upper-case',
      'ce_intent[ faq ]: intent codes are matched trimmed and upper-cased; store it as "FAQ"',
    ]);
  });

  it('refuses two tools whose codes differ only in case, enabled or not (a tool is looked up by code alone)', () => {
    const { violations } = findings((r) =>
      r.mcpTools.push(
        mcpTool({ toolId: 8, toolCode: 'Postgres.Query', toolGroup: 'SQL', intentCode: 'ANY', stateCode: 'ANY' }),
        mcpTool({
          toolId: 9,
          toolCode: 'loan.rating',
          toolGroup: 'SQL',
          intentCode: 'ANY',
          stateCode: 'ANY',
          enabled: false,
        })
      )
    );
    expect(violations).toEqual([
      'ce_mcp_tool[8]: tool_code Postgres.Query is the tool_code of ce_mcp_tool[3] (postgres.query); tool codes are matched case-insensitively, so one would shadow the other',
      'ce_mcp_tool[9]: tool_code loan.rating is the tool_code of ce_mcp_tool[2] (loan.rating); tool codes are matched case-insensitively, so one would shadow the other',
    ]);
  });
});

describe('tool codes as written', () => {
  it('refuses a tool_code with spaces around it, naming the spelling to use', () => {
    const { violations } = findings((r) =>
      r.mcpTools.push(
        mcpTool({ toolId: 8, toolCode: 'loan.score ', toolGroup: 'SQL', intentCode: 'ANY', stateCode: 'ANY' })
      )
    );
    expect(violations).toContain(
      'ce_mcp_tool[8]: tool_code "loan.score " has spaces around it; write it as "loan.score"'
    );
  });
});

describe('ce_config keys', () => {
  it('warns of a key no setting declares, naming the nearest one', () => {
    const { violations, warnings } = findings((r) =>
      r.configs.push(
        configSetting({ configId: 20, configType: 'DialogueActStep', configKey: 'REGEX_AFIRM', configValue: 'yes' }),
        configSetting({ configId: 21, configType: 'Frobnicator', configKey: 'SPEED', configValue: '3' }),
        // settingRow does not trim: the engine never reads this one.
        configSetting({
          configId: 23,
          configType: 'DialogueActStep',
          configKey: 'RESOLUTE_MODE ',
          configValue: 'LLM_ONLY',
        }),
        configSetting({
          configId: 22,
          configType: 'Frobnicator',
          configKey: 'COLOUR',
          configValue: 'x',
          enabled: false,
        })
      )
    );
    expect(violations).toEqual([]);
    expect(warnings).toEqual([
      'ce_config[20]: DialogueActStep.REGEX_AFIRM is not a setting the engine reads, so the row has no effect; did you mean DialogueActStep.REGEX_AFFIRM?',
      'ce_config[21]: Frobnicator.SPEED is not a setting the engine reads, so the row has no effect (the settings are listed in docs/configuration.md)',
      'ce_config[23]: "DialogueActStep.RESOLUTE_MODE " is not a setting the engine reads, so the row has no effect; did you mean DialogueActStep.RESOLUTE_MODE?',
    ]);
  });

  it('refuses a repeated key: the same pair twice (UNIQUE in ce_config), or two enabled rows equal but for case', () => {
    const { violations } = findings((r) =>
      r.configs.push(
        configSetting({ configId: 30, configType: 'DialogueActStep', configKey: 'REGEX_AFFIRM', configValue: '^y$' }),
        configSetting({ configId: 31, configType: 'dialogueactstep', configKey: 'regex_affirm', configValue: '^n$' }),
        configSetting({
          configId: 32,
          configType: 'AuditService',
          configKey: 'LEVEL',
          configValue: 'ALL',
          enabled: false,
        }),
        configSetting({
          configId: 33,
          configType: 'AuditService',
          configKey: 'LEVEL',
          configValue: 'ALL',
          enabled: false,
        }),
        configSetting({
          configId: 34,
          configType: 'auditservice',
          configKey: 'level',
          configValue: 'ALL',
          enabled: false,
        })
      )
    );
    expect(violations).toEqual([
      'ce_config[33]: AuditService.LEVEL repeats ce_config[32] (AuditService.LEVEL): a setting has one row',
      'ce_config[31]: dialogueactstep.regex_affirm repeats ce_config[30] (DialogueActStep.REGEX_AFFIRM): a setting has one row',
    ]);
  });
});
