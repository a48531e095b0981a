/**
 * An HTTP tool declares the arguments it reads, and its body_template encodes each one as a value of its Content-
 * Type.
 */
import { at, itReportsExactly, type ValidateCase } from '../../../support/validate-cases';

const cases: ValidateCase[] = [
  {
    name: 'POST HTTP tool with neither input_schema nor body_template (issue #21)',
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.httpMethod = 'POST';
      h.inputSchema = null;
    },
    violations: ['ce_mcp_http_tool[2]'],
    reason: /neither input_schema nor body_template/,
  },
  {
    name: 'an input_schema pattern only a backtracking matcher can run',
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.inputSchema = {
        type: 'object',
        properties: { customerId: { type: 'string', pattern: '^(?=ORD-)[A-Z]+-\\d+$' } },
      };
    },
    violations: ['ce_mcp_http_tool[2]'],
    reason: /input_schema regular expression .* uses a lookahead/,
  },
  {
    name: "an input_schema pattern with a mid-pattern flag group: a JSON Schema's regex is ECMA-262, which has none",
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.inputSchema = { type: 'object', properties: { customerId: { type: 'string', pattern: '^ord(?i)-\\d+$' } } };
    },
    violations: ['ce_mcp_http_tool[2]'],
    reason: /input_schema .*inline flags are only supported at the start of the pattern/,
  },
  {
    name: 'POST HTTP tool with a body_template needs no input_schema',
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.httpMethod = 'POST';
      h.inputSchema = null;
      h.bodyTemplate = '{"customer": "{{args.customerId}}"}';
    },
    violations: [],
  },
  {
    name: 'a JSON body_template with bare placeholders as values and placeholders inside strings',
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.httpMethod = 'POST';
      h.bodyTemplate = '{"a": {{args.customerId}}, "n": ["turn {{ctx.turnNumber}}", {{ ctx.turnNumber }}]}';
    },
    violations: [],
  },
  {
    name: 'a body_template that is not JSON once each placeholder is a value: an argument could add fields',
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.httpMethod = 'POST';
      h.bodyTemplate = '{"a": {{args.customerId}}, "role": "user",}';
    },
    violations: ['ce_mcp_http_tool[2]'],
    reason:
      /body_template is not JSON once each \{\{…\}\} is taken as one JSON value .*application\/x-www-form-urlencoded/,
  },
  {
    name: 'a form body_template with a plain-text template but no form Content-Type',
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.httpMethod = 'POST';
      h.bodyTemplate = 'x={{args.customerId}}&role=user';
    },
    violations: ['ce_mcp_http_tool[2]'],
    reason: /body_template is not JSON/,
  },
  {
    name: 'a form body_template with a form Content-Type',
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.httpMethod = 'POST';
      h.headers = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };
      h.bodyTemplate = 'x={{args.customerId}}&role=user';
    },
    violations: [],
  },
  {
    name: 'a form body_template whose field name is an argument',
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
      h.bodyTemplate = '{{args.customerId}}=1&role=user';
    },
    violations: ['ce_mcp_http_tool[2]'],
    reason: /placeholder in the form field name/,
  },
  {
    name: 'a JSON body_template whose key is an argument',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).bodyTemplate = '{"{{args.customerId}}": true}'),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /placeholder in the key .*keys must be fixed text/,
  },
  {
    name: 'a text/plain body_template that reads an argument: nothing says how to encode it',
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.headers = { 'Content-Type': 'text/plain' };
      h.bodyTemplate = 'customer {{args.customerId}}';
    },
    violations: ['ce_mcp_http_tool[2]'],
    reason: /cannot encode values for Content-Type "text\/plain"/,
  },
  {
    name: 'a body_template whose Content-Type is an argument',
    breakIt: (r) => {
      const h = at(r.mcpHttpTools, 0);
      h.headers = { 'Content-Type': '{{args.customerId}}' };
      h.bodyTemplate = '{"a": 1}';
    },
    violations: ['ce_mcp_http_tool[2]'],
    reason: /Content-Type header of fixed text/,
  },
  {
    name: 'GET HTTP tool without input_schema or body_template',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).inputSchema = null),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /neither input_schema nor body_template/,
  },
  {
    name: 'input_schema that does not declare an argument a template reads',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).inputSchema = { type: 'object', properties: { other: {} } }),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /reads \{\{args.customerId\}\}, which input_schema does not declare/,
  },
  {
    name: 'input_schema that is not a JSON Schema',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).inputSchema = { type: 'object', properties: { a: { type: 'nope' } } }),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /input_schema is not a valid JSON Schema/,
  },
];

describe('validateConfig: HTTP tool input_schema and body_template (core/config/validation/tool-input-checks.ts)', () => {
  itReportsExactly(cases);
});
