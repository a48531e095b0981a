import { getTableName } from 'drizzle-orm';
import { CONFIG_TABLE_NAMES } from '../../../../core/config/rows';
import { validateConfig } from '../../../../core/config/validate';
import { formatViolation, type ConfigRows } from '../../../../core/config/types';
import { mcpTool } from '../../../../db/seed/builders';
import { CONFIG_TABLES } from '../../../../db/seed/seed';
import { validBaseConfig } from '../../../support/config-fixtures';

function first<T>(list: T[]): T {
  const item = list[0];
  if (item === undefined) throw new Error('fixture has no row');
  return item;
}

const findings = (breakIt: (rows: ConfigRows) => void) => {
  const rows = validBaseConfig();
  breakIt(rows);
  const result = validateConfig(rows);
  return { violations: result.violations.map(formatViolation), warnings: result.warnings.map(formatViolation) };
};

describe('free text that prompts show is sized as templates are (checkTemplateSize)', () => {
  it('warns past 32 KiB on an intent description, an llm_hint and a tool description', () => {
    const { violations, warnings } = findings((r) => {
      const faq = r.intents.find((i) => i.intentCode === 'FAQ');
      if (!faq) throw new Error('no FAQ');
      faq.description = 'Questions. '.repeat(3_100);
      faq.llmHint = 'Say FAQ. '.repeat(3_700);
      first(r.mcpTools).description = 'Looks a loan up. '.repeat(2_000);
    });
    expect(violations).toEqual([]);
    expect(warnings).toEqual([
      'ce_intent[FAQ]: description is 33 KiB; every turn that renders it sends it whole',
      'ce_intent[FAQ]: llm_hint is 33 KiB; every turn that renders it sends it whole',
      'ce_mcp_tool[1]: description is 33 KiB; every turn that renders it sends it whole',
    ]);
  });

  it('refuses one past 1 MiB, and leaves the description of a disabled row alone', () => {
    const { violations, warnings } = findings((r) => {
      first(r.intents).llmHint = 'x'.repeat(1_100_000);
      r.mcpTools.push(
        mcpTool({
          toolId: 9,
          toolCode: 'old.tool',
          toolGroup: 'DB',
          intentCode: 'ANY',
          stateCode: 'ANY',
          enabled: false,
        })
      );
      (r.mcpTools.at(-1) as { description: string | null }).description = 'x'.repeat(1_100_000);
    });
    expect(violations).toEqual([
      'ce_intent[GREETING]: llm_hint is 1074 KiB, over the 1024 KiB a model request can hold',
    ]);
    expect(warnings).toEqual([]);
  });
});

describe('unsafe text in config rows (core/text/unsafe-text.ts)', () => {
  it('refuses a control character, a lone surrogate and a NUL, in columns and inside JSON, of disabled rows too', () => {
    const { violations } = findings((r) => {
      first(r.responses).exactText = 'Hi \uD83D there';
      first(r.outputSchemas).jsonSchema = {
        type: 'object',
        properties: { name: { type: 'string', title: 'a\u0000b' } },
      };
      first(r.rules).description = 'reset\u001b[31m';
      const retired = r.intents.find((i) => !i.enabled);
      if (!retired) throw new Error('no disabled intent');
      retired.description = 'Retired\u0007';
    });
    expect([...violations].sort()).toEqual([
      'ce_intent[RETIRED]: description contains a control character (U+0007)',
      'ce_output_schema[1]: json_schema.properties.name.title contains a NUL character',
      'ce_response[1]: exact_text contains an unpaired UTF-16 surrogate',
      'ce_rule[1]: description contains a control character (U+001B)',
    ]);
  });

  it('accepts tabs, newlines, carriage returns and emoji; quotes an id that is itself unsafe', () => {
    expect(
      findings((r) => {
        first(r.responses).exactText = 'Line one\r\n\tLine two 👋';
      }).violations
    ).toEqual([]);
    const { violations } = findings((r) =>
      r.configs.push({ configId: 5, configType: 'X\u0001', configKey: 'Y', configValue: null, enabled: false })
    );
    expect(violations).toEqual(['ce_config[5]: config_type contains a control character (U+0001)']);
    const intentId = findings((r) => void (first(r.intents).intentCode = 'GREET\u0002')).violations;
    expect(intentId).toContain('ce_intent["GREET\\u0002"]: intent_code contains a control character (U+0002)');
  });
});

it('names each table of the config rows as the database schema does', () => {
  expect(Object.fromEntries(CONFIG_TABLES.map(([key, table]) => [key, getTableName(table)]))).toEqual(
    CONFIG_TABLE_NAMES
  );
});
