/**
 * MCP tool rows, their HTTP rows (method, headers, auth, URL, templates) and their DB rows (read-only SQL, declared
 * binds and identifiers).
 */
import { type ConfigRows } from '../../../../core/config/types';
import { mcpTool, objectSchema } from '../../../../db/seed/builders';
import { at, itReportsExactly, type ValidateCase } from '../../../support/validate-cases';

const cases: ValidateCase[] = [
  {
    name: 'unknown tool side_effect',
    breakIt: (r) => void (at(r.mcpTools, 0).sideEffect = 'WRITE'),
    violations: ['ce_mcp_tool[1]'],
    reason: /side_effect "WRITE"/,
  },
  {
    name: 'unknown tool on_retries_exhausted (#22)',
    breakIt: (r) => void (at(r.mcpTools, 0).onRetriesExhausted = 'WAIT'),
    violations: ['ce_mcp_tool[1]'],
    reason: /on_retries_exhausted "WAIT" is not one of ANSWER, HOLD/,
  },
  {
    name: 'tool hold_timeout_ms below 1 (#22)',
    breakIt: (r) => void (at(r.mcpTools, 0).holdTimeoutMs = 0),
    violations: ['ce_mcp_tool[1]'],
    reason: /hold_timeout_ms/,
  },
  {
    name: 'tool retry max_interval_ms below initial_interval_ms (Temporal refuses the retry policy)',
    breakIt: (r) => {
      at(r.mcpTools, 0).initialIntervalMs = 5_000;
      at(r.mcpTools, 0).maxIntervalMs = 1_000;
    },
    violations: ['ce_mcp_tool[1]'],
    reason: /max_interval_ms \(1000\) must be >= initial_interval_ms \(5000\)/,
  },
  {
    name: 'unknown tool group',
    breakIt: (r) =>
      r.mcpTools.push(
        mcpTool({ toolId: 4, toolCode: 'notify.sms', toolGroup: 'NOTIFICATION', intentCode: 'ANY', stateCode: 'ANY' })
      ),
    violations: ['ce_mcp_tool[4]'],
    reason: /unknown tool_group "NOTIFICATION"/,
  },
  {
    name: 'headers that are not strings',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).headers = { 'X-N': 5 }),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /headers must be an object/,
  },
  {
    name: 'retry_status_codes that are not integers',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).retryStatusCodes = ['502']),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /retry_status_codes/,
  },
  {
    name: 'response_mapping that does not match its kind',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).responseMapping = '$.creditRating'),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /FIELD_TEMPLATE response_mapping must be a non-empty object/,
  },
  {
    name: 'HTTP template reading a non-tool env variable',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).urlTemplate = '{{env.DATABASE_URL}}/x'),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /env.CONVENGINE_TOOL_/,
  },
  {
    name: 'unknown http method',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).httpMethod = 'FETCH'),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /http_method "FETCH"/,
  },
  {
    name: 'API_KEY auth without a secret env',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).authSecretEnv = null),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /needs auth_secret_env/,
  },
  {
    name: 'HTTP tool without its http row',
    breakIt: (r) => void (r.mcpHttpTools = []),
    violations: ['ce_mcp_tool[2]'],
    reason: /no ce_mcp_http_tool row/,
  },
  ...[
    'http://{{args.orderId}}/x',
    'https://api.example.com:{{args.port}}/orders',
    '{{args.base}}/orders',
    '{{env.CONVENGINE_TOOL_BASE}}{{ctx.conversationId}}/orders',
    'http://{{ args.host }}',
  ].map((urlTemplate) => ({
    name: `HTTP URL whose origin a call chooses: ${urlTemplate}`,
    breakIt: (r: ConfigRows) => void (at(r.mcpHttpTools, 0).urlTemplate = urlTemplate),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /url_template lets a call choose where it goes/,
  })),
  {
    name: 'HTTP tool with a blank URL',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).urlTemplate = ''),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /url_template is blank/,
  },
  {
    name: 'an HTTP body_template with a Thymeleaf selection expression',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).bodyTemplate = '{"id": "[[*{customerId}]]"}'),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /body_template: malformed template: a Thymeleaf expression other than \$\{…\}/,
  },
  ...(['[[${args.customerId}]]', "{{args.customerId ?: 'x'}}", '{{args.ids[0]}}'] as const).map((placeholder) => ({
    name: `an HTTP template placeholder ${placeholder}, which the HTTP renderer would send as written`,
    breakIt: (r: ConfigRows) => {
      const h = at(r.mcpHttpTools, 0);
      h.httpMethod = 'POST';
      h.bodyTemplate = `{"id": "${placeholder.replace(/"/g, '\\"')}"}`;
    },
    violations: ['ce_mcp_http_tool[2]'],
    reason:
      /body_template: .* is not rendered in an HTTP tool; write it as \{\{args\.<name>\}\} \(no default, no \[index\]\)/,
  })),
  {
    name: 'DB tool without its db row',
    breakIt: (r) => void (r.mcpDbTools = []),
    violations: ['ce_mcp_tool[1]'],
    reason: /no ce_mcp_db_tool row/,
  },
  {
    name: 'DB tool binding an undeclared parameter',
    breakIt: (r) => void (at(r.mcpDbTools, 0).sqlTemplate = 'select * from loan where id = :loan_id'),
    violations: ['ce_mcp_db_tool[1]'],
    reason: /binds :loan_id/,
  },
  {
    name: 'DB tool that writes',
    breakIt: (r) => void (at(r.mcpDbTools, 0).sqlTemplate = 'delete from loan'),
    violations: ['ce_mcp_db_tool[1]'],
    reason: /SELECT or WITH/,
  },
  {
    name: 'DB tool with ${tbl} but no allowed_identifiers (it could run none, Java took any identifier)',
    breakIt: (r) => {
      const row = at(r.mcpDbTools, 0);
      row.sqlTemplate = 'select status from ${tbl} where customer_id = :customer_id';
      row.paramSchema = objectSchema({ customer_id: { type: 'string' }, tbl: { type: 'string' } });
      row.allowedIdentifiers = null;
    },
    violations: ['ce_mcp_db_tool[1]'],
    reason: /uses \$\{tbl\}, but allowed_identifiers lists no identifier for it \(add allowed_identifiers: \{"tbl"/,
  },
  {
    name: 'DB tool whose allowed identifiers for ${tbl} are an empty list',
    breakIt: (r) => {
      const row = at(r.mcpDbTools, 0);
      row.sqlTemplate = 'select status from ${tbl} where customer_id = :customer_id';
      row.paramSchema = objectSchema({ customer_id: { type: 'string' }, tbl: { type: 'string' } });
      row.allowedIdentifiers = { tbl: [], table: ['loan'] };
    },
    violations: ['ce_mcp_db_tool[1]'],
    reason: /allowed_identifiers lists no identifier for it/,
  },
  {
    name: 'DB tool allowing an identifier the tool would refuse',
    breakIt: (r) => {
      const row = at(r.mcpDbTools, 0);
      row.sqlTemplate = 'select status from ${table} where customer_id = :customer_id';
      row.paramSchema = objectSchema({ customer_id: { type: 'string' }, table: { type: 'string' } });
      row.allowedIdentifiers = { table: ['loan', 'loan; drop table loan'] };
    },
    violations: ['ce_mcp_db_tool[1]'],
    reason: /allowed_identifiers.table has "loan; drop table loan", which is not a plain identifier/,
  },
  {
    name: 'DB tool with ${table} that param_schema does not declare',
    breakIt: (r) =>
      void (at(r.mcpDbTools, 0).sqlTemplate = 'select status from ${table} where customer_id = :customer_id'),
    violations: ['ce_mcp_db_tool[1]'],
    reason: /uses \$\{table\}, which param_schema does not declare/,
  },
];

describe('validateConfig: tool rows (core/config/validation/tool-checks.ts)', () => {
  itReportsExactly(cases);
});
