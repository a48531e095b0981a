/**
 * Prompt templates, planner prompts and prompt settings render: their variables are known and their text fits a
 * model request.
 */
import { validateConfig } from '../../../../core/config/validate';
import { formatViolation } from '../../../../core/config/types';
import { allSettings } from '../../../../core/config/settings';
import { configSetting, promptTemplate, response } from '../../../../db/seed/builders';
import { validBaseConfig } from '../../../support/config-fixtures';
import { at, itReportsExactly, type ValidateCase } from '../../../support/validate-cases';

const cases: ValidateCase[] = [
  {
    name: 'a prompt template with a th: attribute',
    breakIt: (r) => void (at(r.promptTemplates, 0).userPrompt = 'Answer th:text="${context.mcp.finalAnswer}"'),
    violations: ['ce_prompt_template[1]'],
    reason: /user_prompt: malformed template: a Thymeleaf attribute, th:…="…" at offset 7 is not supported/,
  },
  {
    name: 'a prompt setting with an unknown variable (every turn would fail rendering it)',
    breakIt: (r) =>
      r.configs.push(
        configSetting({
          configId: 10,
          configType: 'DialogueActStep',
          configKey: 'USER_PROMPT',
          configValue: 'User message: {{no.such.var}}',
        })
      ),
    violations: ['ce_config[10]'],
    reason: /DialogueActStep\.USER_PROMPT references unknown variable \{\{no\.such\.var\}\}/,
  },
  {
    name: 'prompt referencing an unknown variable',
    breakIt: (r) => void (at(r.promptTemplates, 1).userPrompt = 'Hello {{unknown_var}}'),
    violations: ['ce_prompt_template[2]'],
    reason: /unknown variable \{\{unknown_var\}\}/,
  },
  {
    name: 'planner prompt with a malformed template',
    breakIt: (r) => void (at(r.mcpPlanners, 0).userPrompt = 'User: {{user_input'),
    violations: ['ce_mcp_planner[1]'],
    reason: /never closed/,
  },
  {
    name: 'interaction_contract with a non-array allows',
    breakIt: (r) => void (at(r.promptTemplates, 0).interactionContract = { allows: 'affirm' }),
    violations: ['ce_prompt_template[1]'],
    reason: /"allows" must be an array of strings/,
  },
  {
    name: 'a 40 KiB system prompt is a warning: every turn that renders it sends it whole',
    breakIt: (r) => void (at(r.promptTemplates, 0).systemPrompt = 'Be brief. '.repeat(4_100)),
    violations: [],
    warnings: ['ce_prompt_template[1]'],
  },
  {
    name: 'a 5 MB system prompt is refused: it cannot fit a model request',
    breakIt: (r) => void (at(r.promptTemplates, 0).systemPrompt = 'é'.repeat(2_600_000)),
    violations: ['ce_prompt_template[1]'],
    reason: /system_prompt is 5078 KiB, over the 1024 KiB a model request can hold/,
  },
  {
    name: 'interaction_mode outside the enum is a warning',
    breakIt: (r) => void (at(r.promptTemplates, 0).interactionMode = 'FOO'),
    violations: [],
    warnings: ['ce_prompt_template[1]'],
  },
  {
    name: 'a template reading a context path no step writes is a warning (item 2)',
    breakIt: (r) =>
      r.responses.push(
        response({
          responseId: 9,
          intentCode: 'FAQ',
          stateCode: 'IDLE',
          responseType: 'EXACT',
          exactText: 'A [[${context.mcp.finalAnswer}]] [[${context.mcp.lifecycle.status}]] [[${context.claimNumber}]]',
        })
      ),
    violations: [],
    warnings: ['ce_response[9]'],
  },
];

describe('validateConfig: prompt templates (core/config/validation/prompt-checks.ts)', () => {
  itReportsExactly(cases);

  it('accepts every prompt setting at its default, written out as a ce_config row', () => {
    const rows = validBaseConfig();
    const templates = allSettings.filter((def) => def.template);
    expect(templates.length).toBeGreaterThanOrEqual(14);
    templates.forEach((def, i) =>
      rows.configs.push(
        configSetting({
          configId: 900 + i,
          configType: def.configType,
          configKey: def.configKey,
          configValue: String(def.default),
        })
      )
    );
    expect(validateConfig(rows).violations.map(formatViolation)).toEqual([]);
  });

  it('lets templates use schema fields of their intent and keys written by rules', () => {
    const rows = validBaseConfig();
    at(rows.promptTemplates, 1).systemPrompt =
      'Customer {{customerId}} asked for {{requestedAmount}}; flag {{awaiting_confirmation}}';
    expect(validateConfig(rows).violations).toEqual([]);
    at(rows.rules, 2).actionValue = 'other_flag:true';
    expect(validateConfig(rows).violations.map(formatViolation)).toEqual([
      'ce_prompt_template[2]: system_prompt references unknown variable {{awaiting_confirmation}}',
    ]);
  });

  it("lets a template read another intent's schema field, which the context keeps, and warns when it may be absent", () => {
    const rows = validBaseConfig();
    rows.promptTemplates.push(
      promptTemplate({
        templateId: 9,
        intentCode: 'FAQ',
        stateCode: 'IDLE',
        outputFormat: 'TEXT',
        systemPrompt: 'Customer {{customerId}}, amount {{requestedAmount ?: "none"}}',
        userPrompt: 'Text: {{user_input}}',
      })
    );
    rows.responses.push(
      response({
        responseId: 9,
        intentCode: 'FAQ',
        stateCode: 'IDLE',
        responseType: 'EXACT',
        exactText: 'For [[${context.customerId}]] ([[${context.requestedAmount ?: ""}]])',
      })
    );
    const result = validateConfig(rows);
    expect(result.violations).toEqual([]);
    expect(result.warnings.map(formatViolation)).toEqual([
      "ce_prompt_template[9]: system_prompt reads {{customerId}}, which only the output schema of intent LOAN_APPLICATION extracts: a turn that renders it fails with UNRESOLVED_PROMPT_VARIABLE unless the conversation went through LOAN_APPLICATION first (give it a default, {{customerId ?: ''}}, to render it empty)",
      'ce_response[9]: exact_text reads [[${context.customerId}]], which only the output schema of intent LOAN_APPLICATION extracts (it renders empty unless the conversation went through LOAN_APPLICATION first)',
    ]);
  });

  it('says what an unwritten context path does where it is rendered: a prompt fails the turn, a reply renders empty', () => {
    const rows = validBaseConfig();
    at(rows.promptTemplates, 0).systemPrompt = 'X={{context.not_there}} Y={{context.also_not ?: ""}}';
    at(rows.promptTemplates, 1).userPrompt = 'Z=[[${ context.gone }]]';
    rows.responses.push(
      response({
        responseId: 9,
        intentCode: 'FAQ',
        stateCode: 'IDLE',
        responseType: 'EXACT',
        exactText: 'A [[${context.not_there}]]',
      })
    );
    const warnings = validateConfig(rows).warnings.map(formatViolation);
    expect(warnings).toEqual([
      "ce_prompt_template[1]: system_prompt reads {{context.not_there}}, which no step writes: a turn that renders it fails with UNRESOLVED_PROMPT_VARIABLE unless a task or tool result has put it there first (give it a default, {{context.not_there ?: ''}}, to render it empty)",
      // Each placeholder is quoted as its author wrote it, and the default suggested in that syntax.
      "ce_prompt_template[2]: user_prompt reads [[${ context.gone }]], which no step writes: a turn that renders it fails with UNRESOLVED_PROMPT_VARIABLE unless a task or tool result has put it there first (give it a default, [[${context.gone ?: ''}]], to render it empty)",
      'ce_response[9]: exact_text reads [[${context.not_there}]], which no step writes (it renders empty unless a task or tool result puts it there)',
    ]);
  });

  it('quotes an unknown or unavailable placeholder as its author wrote it, Thymeleaf syntax and all', () => {
    const rows = validBaseConfig();
    at(rows.responses, 0).exactText = 'Hi [[${nope}]] and [(${ nada.x })]';
    at(rows.mcpHttpTools, 0).bodyTemplate = '{"id": "[[${secret.key}]]"}';
    expect(validateConfig(rows).violations.map(formatViolation)).toEqual([
      'ce_response[1]: exact_text references unknown variable [[${nope}]]',
      'ce_response[1]: exact_text references unknown variable [(${ nada.x })]',
      expect.stringMatching(
        /^ce_mcp_http_tool\[2\]: body_template: \[\[\$\{secret\.key\}\]\] is not rendered in an HTTP tool/
      ),
    ]);
  });
});
