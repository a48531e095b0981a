import { explainViolation } from '../../../core/config/explain';
import { emptyConfigRows } from '../../../core/config/rows';
import { httpTool } from '../../../db/seed/builders';

describe('validate-config --explain fixes (issue #21)', () => {
  const rows = {
    ...emptyConfigRows(),
    mcpHttpTools: [httpTool({ toolId: 7, httpMethod: 'POST', urlTemplate: 'https://x.test/c/{{args.customerId}}' })],
  };

  it('proposes an input_schema listing the arguments the templates read', () => {
    const fix = explainViolation(
      { table: 'ce_mcp_http_tool', id: '7', reason: 'has neither input_schema nor body_template, so …' },
      rows
    );
    expect(fix).toContain(
      `UPDATE ce_mcp_http_tool SET input_schema = '{"type":"object","properties":{"customerId":{"type":"string"}},"required":["customerId"]}'`
    );
    expect(fix).toContain('WHERE tool_id = 7;');
  });

  it('maps an unknown phase to an UPDATE of the rule', () => {
    const fix = explainViolation({ table: 'ce_rule', id: '12', reason: 'unknown phase "AFTER_MCP"' }, rows);
    expect(fix).toContain("UPDATE ce_rule SET phase = 'PRE_RESPONSE_RESOLUTION' WHERE rule_id = 12;");
  });

  it('lists the identifiers a ${placeholder} of a DB tool may take', () => {
    const reason = 'sql_template uses ${tbl}, but allowed_identifiers lists no identifier for it (add …)';
    const fix = explainViolation({ table: 'ce_mcp_db_tool', id: '9', reason }, rows);
    expect(fix).toContain(
      `SET allowed_identifiers = coalesce(allowed_identifiers, '{}') || '{"tbl": ["<table or column>"]}'\nWHERE tool_id = 9;`
    );
  });

  it('adds the SCHEMA_JSON prompt template an output schema is extracted with', () => {
    const reason =
      'has no enabled ce_prompt_template with output_format=SCHEMA_JSON for intent BIG007 / state COLLECT (or ANY): …';
    const fix = explainViolation({ table: 'ce_output_schema', id: '4', reason }, rows);
    expect(fix).toContain("VALUES ('BIG007', 'COLLECT', 'SCHEMA_JSON',");
    expect(fix).toContain("'Extract the fields of {{schema}} from the message.'");
  });

  it('falls back to inspecting the row and disabling it, quoting text keys', () => {
    const fix = explainViolation({ table: 'ce_intent', id: "O'BRIEN", reason: 'something else' }, rows);
    expect(fix).toContain("SELECT * FROM ce_intent WHERE intent_code = 'O''BRIEN';");
    expect(fix).toContain("UPDATE ce_intent SET enabled = false WHERE intent_code = 'O''BRIEN';");
  });
});
