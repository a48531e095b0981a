import { validateConfig } from '../../../../core/config/validate';
import { formatViolation, type ConfigRows, type RuleRow } from '../../../../core/config/types';
import { mcpTool, rule } from '../../../../db/seed/builders';
import { packConfigRows } from '../../../../db/seed/merge';
import { orderDiagnosticsPack } from '../../../../db/seed/packs';

/**
 * A DERIVED prompt reading {{context.mcp.finalAnswer}} in a state reachable without the planner
 * (docs/migrating-from-java.md: such a turn fails with UNRESOLVED_PROMPT_VARIABLE). The order pack renders its
 * COMPLETED reply from prompt 51 ("Planner answer: {{context.mcp.finalAnswer}}"); rule 54 (PRE_AGENT_MCP,
 * COMPLETED -> ANALYZE, REGEX .*) sends every later message back to the planner.
 */
const findings = (change: (rows: ConfigRows) => void) => {
  const rows = structuredClone(packConfigRows([orderDiagnosticsPack]));
  change(rows);
  const result = validateConfig(rows);
  return { violations: result.violations.map(formatViolation), warnings: result.warnings.map(formatViolation) };
};
const withoutRule54 = (r: ConfigRows) => {
  r.rules = r.rules.filter((x) => x.ruleId !== 54);
};
const PROMPT_51 =
  "ce_prompt_template[51]: user_prompt reads {{context.mcp.finalAnswer}}, which DERIVED ce_response[51] renders in state COMPLETED (intent ORDER_DIAGNOSTICS); no enabled ce_mcp_tool is in scope there, so a later message that stays in COMPLETED is answered without the planner and fails with UNRESOLVED_PROMPT_VARIABLE (an earlier turn's answer is cleared, never repeated). Move such turns back to the planner's state with a PRE_AGENT_MCP SET_STATE rule for state COMPLETED that matches every message (rule_type REGEX, match_pattern .*), as the bundled packs do, or write {{context.mcp.finalAnswer ?: ''}}";

describe("DERIVED prompts reading the planner's answer in a state reached without the planner", () => {
  it('says nothing of the pack as shipped: rule 54 moves every later message back to the planner', () => {
    expect(findings(() => undefined)).toEqual({ violations: [], warnings: [] });
  });

  it('warns (not an error) without that rule, naming the prompt, the state and the fix', () => {
    expect(findings(withoutRule54)).toEqual({ violations: [], warnings: [PROMPT_51] });
  });

  it('warns when the rule moves only some messages on (a later "thanks" stays in COMPLETED)', () => {
    const { warnings } = findings((r) => {
      const rule54 = r.rules.find((x) => x.ruleId === 54);
      if (rule54) rule54.matchPattern = '(?i)\\border\\b';
    });
    expect(warnings).toEqual([PROMPT_51]);
  });

  it('says nothing when the placeholder has a default, or when the state has a tool (the planner runs there)', () => {
    const defaulted = findings((r) => {
      withoutRule54(r);
      const prompt = r.promptTemplates.find((x) => x.templateId === 51);
      if (prompt) prompt.userPrompt = "Planner answer: {{context.mcp.finalAnswer ?: ''}}\nTool results: {{context}}";
    });
    expect(defaulted.warnings).toEqual([]);
    const withTool = findings((r) => {
      withoutRule54(r);
      const base = { toolGroup: 'HTTP_API', intentCode: 'ORDER_DIAGNOSTICS', description: 'status' };
      r.mcpTools.push(mcpTool({ ...base, toolId: 5003, toolCode: 'mock.order.recheck', stateCode: 'COMPLETED' }));
      r.mcpHttpTools.push({ ...structuredClone(r.mcpHttpTools[0]!), toolId: 5003 });
    });
    expect(withTool.warnings).toEqual([]);
  });

  it("warns of a derivation hint that reads it too, on the response's row", () => {
    const { warnings } = findings((r) => {
      withoutRule54(r);
      const response = r.responses.find((x) => x.responseId === 51);
      if (response) response.derivationHint = 'Quote {{context.mcp.observations}} and mention the order id.';
    });
    expect(warnings).toEqual([
      expect.stringMatching(
        /^ce_response\[51\]: derivation_hint reads \{\{context\.mcp\.observations\}\}, which DERIVED ce_response\[51\] renders in state COMPLETED/
      ),
      PROMPT_51,
    ]);
  });
});

describe("SHORT_CIRCUIT rules before this turn's planner or direct tool", () => {
  const shortCircuit = (ruleId: number, phase: string, actionValue: string | null): RuleRow =>
    rule({
      ruleId,
      intentCode: 'ORDER_DIAGNOSTICS',
      stateCode: 'ANY',
      phase,
      ruleType: 'REGEX',
      matchPattern: '(?i)\\bagain\\b',
      action: 'SHORT_CIRCUIT',
      actionValue,
    });

  it('warns of one that answers with (or reads) what there is only an earlier turn has written', () => {
    const { violations, warnings } = findings((r) => {
      r.rules.push(
        shortCircuit(90, 'PRE_AGENT_MCP', null),
        shortCircuit(91, 'POST_CLASSIFIER_INTENT', 'Last time: {{context.mcp.finalAnswer}}'),
        shortCircuit(92, 'POST_SCHEMA_EXTRACTION', 'Order [[${context.mcp.toolExecution.result.mapped.orderId}]].')
      );
    });
    expect(violations).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^ce_rule\[90\]: SHORT_CIRCUIT with an empty action_value .* in PRE_AGENT_MCP, before this turn's planner/
      ),
      expect.stringMatching(
        /^ce_rule\[91\]: SHORT_CIRCUIT action_value reads \{\{context\.mcp\.finalAnswer\}\}, which in POST_CLASSIFIER_INTENT only an earlier turn has written.*UNRESOLVED_PROMPT_VARIABLE.*\{\{context\.mcp\.finalAnswer \?: ''\}\}$/
      ),
      expect.stringMatching(/^ce_rule\[92\]: SHORT_CIRCUIT action_value reads \[\[\$\{context\.mcp\.toolExecution/),
    ]);
  });

  it("says nothing of one that reads this turn's output: after the planner, or the direct tool's after it ran", () => {
    const { violations, warnings } = findings((r) => {
      r.rules.push(
        shortCircuit(93, 'POST_AGENT_MCP', null),
        shortCircuit(94, 'PRE_RESPONSE_RESOLUTION', 'Answer: {{context.mcp.finalAnswer}}'),
        shortCircuit(95, 'POST_TOOL_EXECUTION', 'Order {{context.mcp.toolExecution.result.mapped.orderId}}.'),
        shortCircuit(96, 'PRE_AGENT_MCP', "Still working on {{context.mcp.finalAnswer ?: 'it'}}.")
      );
    });
    expect({ violations, warnings }).toEqual({ violations: [], warnings: [] });
  });
});
