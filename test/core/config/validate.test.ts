import { allSettings } from '../../../core/config/settings';
import { validateConfig } from '../../../core/config/validate';
import { formatViolation, type ConfigRows } from '../../../core/config/types';
import { configSetting, mcpTool, objectSchema, response, rule } from '../../../db/seed/builders';
import { validBaseConfig } from '../../support/config-fixtures';

type Case = {
  name: string;
  breakIt: (rows: ConfigRows) => void;
  /** Exactly these `table[id]` are reported as violations. */
  violations: string[];
  reason?: RegExp;
  /** Exactly these are reported as warnings (none otherwise). */
  warnings?: string[];
};

function at<T>(list: T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`fixture has no row ${index}`);
  return item;
}

const cases: Case[] = [
  {
    name: 'blank state on a tool',
    breakIt: (r) => void (at(r.mcpTools, 1).stateCode = ' '),
    violations: ['ce_mcp_tool[2]'],
    reason: /state_code is null\/blank/,
  },
  {
    name: 'blank intent on a rule',
    breakIt: (r) => void (at(r.rules, 0).intentCode = ''),
    violations: ['ce_rule[1]'],
    reason: /intent_code is null\/blank/,
  },
  {
    name: 'intent not in ce_intent',
    breakIt: (r) => void (at(r.responses, 0).intentCode = 'REFUND'),
    violations: ['ce_response[1]'],
    reason: /invalid intent_code=REFUND/,
    // GREETING is left without a response.
    warnings: ['ce_intent[GREETING]'],
  },
  {
    name: 'row of a disabled intent is only a warning',
    breakIt: (r) => void (at(r.mcpPlanners, 0).intentCode = 'RETIRED'),
    violations: [],
    warnings: ['ce_mcp_planner[1]'],
  },
  {
    name: 'state that no rule uses or sets',
    breakIt: (r) => void (at(r.responses, 0).stateCode = 'NOWHERE'),
    violations: ['ce_response[1]'],
    reason: /invalid state_code=NOWHERE/,
    // GREETING is left without a response in IDLE, which rule 1 sets.
    warnings: ['ce_rule[1]'],
  },
  {
    name: 'IDLE without any rule mentioning it (scenario 21)',
    breakIt: (r) => void (r.rules = r.rules.filter((x) => x.ruleId !== 1)),
    violations: ['ce_intent_classifier[1]', 'ce_response[1]'],
    reason: /invalid state_code=IDLE/,
  },
  {
    name: 'invalid rule regex',
    breakIt: (r) => void (at(r.rules, 0).matchPattern = '(unclosed'),
    violations: ['ce_rule[1]'],
    reason: /invalid regular expression/,
  },
  {
    name: 'invalid classifier regex',
    breakIt: (r) => void (at(r.classifiers, 0).pattern = '(?i)[a-'),
    violations: ['ce_intent_classifier[1]'],
    reason: /invalid regular expression/,
  },
  {
    name: 'invalid policy regex',
    breakIt: (r) => void (at(r.policies, 0).pattern = '*oops'),
    violations: ['ce_policy[1]'],
    reason: /invalid regular expression/,
  },
  {
    name: 'invalid dialogue-act regex setting',
    breakIt: (r) =>
      r.configs.push(
        configSetting({ configId: 9, configType: 'DialogueActStep', configKey: 'REGEX_AFFIRM', configValue: '(yes' })
      ),
    violations: ['ce_config[9]'],
    reason: /REGEX_AFFIRM/,
  },
  ...[
    [
      'a pattern that does not compile (the approval gate silently let everything through)',
      '["order("]',
      /\[0\]: invalid regular expression/,
    ],
    ['an object', '{"a":1}', /must be a JSON array of regular expressions/],
    ['numbers', '[1,2]', /must be a JSON array of regular expressions/],
    ['not JSON', '[order', /is not valid JSON/],
  ].map(([what, value, reason]) => ({
    name: `SENSITIVE_PATTERNS holding ${String(what)}`,
    breakIt: (r: ConfigRows) =>
      r.configs.push(
        configSetting({
          configId: 11,
          configType: 'GuardrailStep',
          configKey: 'SENSITIVE_PATTERNS',
          configValue: value as string,
        })
      ),
    violations: ['ce_config[11]'],
    reason: reason as RegExp,
  })),
  {
    name: 'an exact_text with a Thymeleaf element block (it would reach the user as written)',
    breakIt: (r) => void (at(r.responses, 0).exactText = `d [# th:if="\${state == 'IDLE'}"]idle[/]`),
    violations: ['ce_response[1]'],
    reason: /exact_text: malformed template: a Thymeleaf element block, \[# …\]…\[\/\] at offset 2 is not supported/,
  },
  {
    name: 'a prompt template with a th: attribute',
    breakIt: (r) => void (at(r.promptTemplates, 0).userPrompt = 'Answer th:text="${context.mcp.finalAnswer}"'),
    violations: ['ce_prompt_template[1]'],
    reason: /user_prompt: malformed template: a Thymeleaf attribute, th:…="…" at offset 7 is not supported/,
  },
  {
    name: 'an HTTP body_template with a Thymeleaf selection expression',
    breakIt: (r) => void (at(r.mcpHttpTools, 0).bodyTemplate = '{"id": "[[*{customerId}]]"}'),
    violations: ['ce_mcp_http_tool[2]'],
    reason: /body_template: malformed template: a Thymeleaf expression other than \$\{…\}/,
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
    name: 'a rule regex with a lookahead, which only a backtracking matcher can run',
    breakIt: (r) => void (at(r.rules, 0).matchPattern = '(?i)^(?!.*thanks).*refund'),
    violations: ['ce_rule[1]'],
    reason: /match_pattern: regular expression ".*" uses a lookahead, .*; rewrite it without/,
  },
  {
    name: 'a classifier regex with a backreference',
    breakIt: (r) => void (at(r.classifiers, 0).pattern = '(\\w)\\1{5}'),
    violations: ['ce_intent_classifier[1]'],
    reason: /pattern: regular expression ".*" uses a backreference/,
  },
  {
    name: 'a policy regex too large to match in bounded time',
    breakIt: (r) => void (at(r.policies, 0).pattern = 'password.{0,600}reset'),
    violations: ['ce_policy[1]'],
    reason: /is too large to match in bounded time \(\d+ steps, at most 1000\)/,
  },
  {
    name: 'a dialogue-act setting with a possessive quantifier',
    breakIt: (r) =>
      r.configs.push(
        configSetting({
          configId: 11,
          configType: 'DialogueActStep',
          configKey: 'REGEX_EDIT',
          configValue: '^\\s*+edit$',
        })
      ),
    violations: ['ce_config[11]'],
    reason: /REGEX_EDIT .*uses a possessive quantifier/,
  },
  {
    name: 'a guardrail SENSITIVE_PATTERNS entry that does not compile (it would never flag a message)',
    breakIt: (r) =>
      r.configs.push(
        configSetting({
          configId: 12,
          configType: 'GuardrailStep',
          configKey: 'SENSITIVE_PATTERNS',
          configValue: '["(?i)delete account", "(close|cancel) (\\\\w+) \\\\2"]',
        })
      ),
    violations: ['ce_config[12]'],
    reason:
      /GuardrailStep\.SENSITIVE_PATTERNS \[1\]: regular expression "\(close\|cancel\) \(\\w\+\) \\2" uses a backreference/,
  },
  {
    name: 'invalid JSONPath',
    breakIt: (r) => void (at(r.rules, 2).matchPattern = 'bad((('),
    violations: ['ce_rule[3]'],
    reason: /invalid JSONPath/,
  },
  {
    name: 'unknown rule type',
    breakIt: (r) => void (at(r.rules, 0).ruleType = 'FOO'),
    violations: ['ce_rule[1]'],
    reason: /unknown rule_type "FOO"/,
  },
  {
    name: 'unknown action',
    breakIt: (r) => void (at(r.rules, 2).action = 'SET_MOOD'),
    violations: ['ce_rule[3]'],
    reason: /unknown action "SET_MOOD"/,
  },
  {
    name: 'unknown phase',
    breakIt: (r) =>
      r.rules.push(
        rule({
          ruleId: 7,
          phase: 'AFTER_LUNCH',
          intentCode: 'FAQ',
          stateCode: 'IDLE',
          ruleType: 'EXACT',
          matchPattern: 'ANY',
          action: 'SET_STATE',
          actionValue: 'IDLE',
        })
      ),
    violations: ['ce_rule[7]'],
    reason: /unknown phase "AFTER_LUNCH"/,
  },
  {
    name: 'legacy phase AGENT_POST_MCP is accepted (D3)',
    breakIt: (r) =>
      r.rules.push(
        rule({
          ruleId: 8,
          phase: 'AGENT_POST_MCP',
          intentCode: 'FAQ',
          stateCode: 'IDLE',
          ruleType: 'JSON_PATH',
          matchPattern: '$.mcp.finalAnswer',
          action: 'SET_STATE',
          actionValue: 'IDLE',
        })
      ),
    violations: [],
  },
  {
    name: 'SET_INPUT_PARAM that looks like JSON but does not parse',
    breakIt: (r) => void (at(r.rules, 2).actionValue = '{"awaiting_confirmation":'),
    violations: ['ce_rule[3]'],
    reason: /looks like JSON but does not parse/,
  },
  {
    name: 'SET_DIALOGUE_ACT with an unknown act',
    breakIt: (r) => Object.assign(at(r.rules, 2), { action: 'SET_DIALOGUE_ACT', actionValue: 'SHRUG' }),
    violations: ['ce_rule[3]'],
    reason: /not a dialogue act/,
  },
  {
    name: 'SET_STATE without a target',
    breakIt: (r) => void (at(r.rules, 3).actionValue = ''),
    violations: ['ce_rule[4]', 'ce_response[3]', 'ce_prompt_template[2]'],
  },
  {
    name: 'prompt referencing an unknown variable',
    breakIt: (r) => void (at(r.promptTemplates, 1).userPrompt = 'Hello {{unknown_var}}'),
    violations: ['ce_prompt_template[2]'],
    reason: /unknown variable \{\{unknown_var\}\}/,
  },
  {
    name: 'response text referencing an unknown variable',
    breakIt: (r) => void (at(r.responses, 3).exactText = 'Hi [[${customerNmae}]]'),
    violations: ['ce_response[4]'],
    reason: /customerNmae/,
  },
  {
    name: 'planner prompt with a malformed template',
    breakIt: (r) => void (at(r.mcpPlanners, 0).userPrompt = 'User: {{user_input'),
    violations: ['ce_mcp_planner[1]'],
    reason: /never closed/,
  },
  {
    name: 'invalid JSON schema',
    breakIt: (r) => void (at(r.outputSchemas, 0).jsonSchema = { type: 'object', properties: { a: { type: 'strin' } } }),
    violations: ['ce_output_schema[1]'],
    reason: /not a valid JSON Schema/,
  },
  {
    name: 'output schema that is not an object schema',
    breakIt: (r) => void (at(r.outputSchemas, 0).jsonSchema = { type: 'array' }),
    violations: ['ce_output_schema[1]'],
    reason: /must describe an object/,
  },
  {
    name: 'output schema declaring a context key the engine owns',
    breakIt: (r) => {
      const schema = at(r.outputSchemas, 0).jsonSchema as { properties: Record<string, unknown> };
      schema.properties['intent_lock'] = { type: 'object' };
      schema.properties['mcp'] = { type: 'string' };
    },
    violations: ['ce_output_schema[1]'],
    reason:
      /json_schema declares "intent_lock", "mcp", a context key no model writes \(mcp, intent_lock, .*, approval\): .*rename/,
  },
  {
    name: 'DB tool param_schema that is not a schema',
    breakIt: (r) =>
      void (at(r.mcpDbTools, 0).paramSchema = { type: 'object', properties: { customer_id: { type: 42 } } }),
    violations: ['ce_mcp_db_tool[1]'],
    reason: /param_schema/,
  },
  {
    name: 'interaction_contract with a non-array allows',
    breakIt: (r) => void (at(r.promptTemplates, 0).interactionContract = { allows: 'affirm' }),
    violations: ['ce_prompt_template[1]'],
    reason: /"allows" must be an array of strings/,
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
    name: 'unknown classifier type',
    breakIt: (r) => void (at(r.classifiers, 1).ruleType = 'AGENT'),
    violations: ['ce_intent_classifier[2]'],
    reason: /unknown rule_type "AGENT"/,
  },
  {
    name: 'unknown policy type',
    breakIt: (r) => void (at(r.policies, 0).ruleType = 'EXACT'),
    violations: ['ce_policy[1]'],
    reason: /unknown rule_type "EXACT"/,
  },
  {
    name: 'unknown response_type',
    breakIt: (r) => void (at(r.responses, 0).responseType = 'CANNED'),
    violations: ['ce_response[1]'],
    reason: /response_type "CANNED"/,
  },
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
    name: 'unknown tool group',
    breakIt: (r) =>
      r.mcpTools.push(
        mcpTool({ toolId: 4, toolCode: 'notify.sms', toolGroup: 'NOTIFICATION', intentCode: 'ANY', stateCode: 'ANY' })
      ),
    violations: ['ce_mcp_tool[4]'],
    reason: /unknown tool_group "NOTIFICATION"/,
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
  {
    name: 'unparseable declared setting',
    breakIt: (r) => void (at(r.configs, 0).configValue = 'lots'),
    violations: ['ce_config[1]'],
    reason: /must be a number/,
  },
  {
    name: 'an int setting past what a timer takes (it once made an invalid Date in the workflow)',
    breakIt: (r) =>
      void Object.assign(at(r.configs, 0), {
        configKey: 'APPROVAL_TIMEOUT_MS',
        configValue: '99999999999999999999',
      }),
    violations: ['ce_config[1]'],
    reason: /must be <= 2147483647/,
  },
  {
    name: 'a planner loop limit past what a turn history holds',
    breakIt: (r) => void (at(r.configs, 0).configValue = '1000000'),
    violations: ['ce_config[1]'],
    reason: /MCP_TOOL_MAX_LOOPS must be <= 100/,
  },
  {
    name: 'an int setting in another notation than decimal digits',
    breakIt: (r) => void (at(r.configs, 0).configValue = '1e3'),
    violations: ['ce_config[1]'],
    reason: /must be an integer in decimal digits/,
  },
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
  ...(
    [
      'Hi, how can I help you today?',
      '"just a JSON string"',
      '42',
      '{"a":1',
      ' ',
      'Hi {{context.name ?: "there"}}',
      '{"name": {{intent}} {{state}}}',
      '{{state}}',
    ] as const
  ).map((text) => ({
    name: `an EXACT JSON response whose exact_text is ${JSON.stringify(text)}`,
    breakIt: (r: ConfigRows) => void Object.assign(at(r.responses, 0), { outputFormat: 'JSON', exactText: text }),
    violations: ['ce_response[1]'],
    reason:
      text.trim() === ''
        ? /^ce_response\[1\]: EXACT response needs exact_text$/
        : /^ce_response\[1\]: exact_text is not a JSON object or array once each placeholder is taken as one JSON value, which output_format JSON sends as the reply: write it as JSON, e\.g\. .*, or set output_format TEXT$/,
  })),
  ...(
    [
      '{"greeting": "Hi {{context.name ?: \'there\'}}"}',
      '{"intent": {{intent}}, "note": "[[${state}]] and {{intent}}", "n": [[${state}]]}',
      ' [1, {"a": null}] ',
    ] as const
  ).map((text) => ({
    name: `an EXACT JSON response with exact_text ${text}: JSON whatever its values are`,
    breakIt: (r: ConfigRows) => void Object.assign(at(r.responses, 0), { outputFormat: 'JSON', exactText: text }),
    violations: [],
  })),
  {
    name: 'a 5 MB exact_text is refused as text for the user, which no model request carries',
    breakIt: (r) => void (at(r.responses, 0).exactText = 'é'.repeat(2_600_000)),
    violations: ['ce_response[1]'],
    reason: /^ce_response\[1\]: exact_text is 5078 KiB, over the 1024 KiB limit of text sent to the user$/,
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
  {
    name: 'reserved AWAITING_APPROVAL / TURN_FAILED responses need no rule and may use their own variables (items 5, 10)',
    breakIt: (r) => {
      r.responses.push(
        response({
          responseId: 10,
          intentCode: 'ANY',
          stateCode: 'AWAITING_APPROVAL',
          responseType: 'EXACT',
          exactText: 'Approve {{toolCode}} with {{args.id}} until {{expiresAt}}?',
        }),
        response({
          responseId: 11,
          intentCode: 'FAQ',
          stateCode: 'TURN_FAILED',
          responseType: 'EXACT',
          exactText: 'Sorry ({{failureType}}, retry: {{retryable}}).',
        }),
        response({ responseId: 12, intentCode: 'FAQ', stateCode: 'TURN_FAILED', responseType: 'DERIVED' }),
        response({
          responseId: 13,
          intentCode: 'FAQ',
          stateCode: 'AWAITING_APPROVAL',
          responseType: 'EXACT',
          exactText: 'Failed with {{failureType}}',
        })
      );
    },
    violations: ['ce_response[12]', 'ce_response[13]'],
    reason: /a TURN_FAILED response must be EXACT with output_format TEXT[\s\S]*unknown variable \{\{failureType\}\}/,
  },
  {
    name: 'DERIVED response without a prompt template',
    breakIt: (r) =>
      r.responses.push(response({ responseId: 9, intentCode: 'FAQ', stateCode: 'IDLE', responseType: 'DERIVED' })),
    violations: ['ce_response[9]'],
    reason: /no enabled ce_prompt_template/,
  },
  {
    name: 'semantic mapping to an unknown concept',
    breakIt: (r) => void (at(r.semanticMappings, 0).conceptKey = 'LEASE'),
    violations: ['ce_semantic_mapping[1]'],
    reason: /concept_key "LEASE"/,
  },
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

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const rows = validBaseConfig();
    c.breakIt(rows);
    const result = validateConfig(rows);
    const named = (list: { table: string; id: string }[]) =>
      [...new Set(list.map((v) => `${v.table}[${v.id}]`))].sort();
    expect(named(result.violations)).toEqual([...c.violations].sort());
    expect(named(result.warnings)).toEqual([...(c.warnings ?? [])].sort());
    if (c.reason) expect(result.violations.map(formatViolation).join('\n')).toMatch(c.reason);
  });

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
    at(rows.promptTemplates, 1).intentCode = 'FAQ';
    expect(validateConfig(rows).violations.map(formatViolation)).toEqual(
      expect.arrayContaining([expect.stringContaining('{{customerId}}')])
    );
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

  it('warns of each task a row names: tasks are registered in code, which validation cannot see', () => {
    const rows = validBaseConfig();
    rows.rules.push(
      rule({
        ruleId: 40,
        intentCode: 'FAQ',
        stateCode: 'IDLE',
        ruleType: 'REGEX',
        matchPattern: '.*',
        action: 'SET_TASK',
        actionValue: 'auditTask:one,two',
      })
    );
    rows.pendingActions.push({
      pendingActionId: 5,
      intentCode: 'FAQ',
      stateCode: 'IDLE',
      actionKey: 'hold',
      beanName: 'holdTask',
      methodNames: 'cancel',
      priority: 1,
      description: null,
      enabled: true,
    });
    const result = validateConfig(rows);
    expect(result.violations).toEqual([]);
    const [ruleWarning, actionWarning] = result.warnings.map(formatViolation);
    expect(ruleWarning).toMatch(
      /^ce_rule\[40\]: runs task auditTask\.one, auditTask\.two, which is registered in code, not config: .*`convengine start` and `convengine worker` register no tasks.*, or the rule audits each method as MISSING and does nothing$/
    );
    expect(actionWarning).toMatch(
      /^ce_pending_action\[5\]: runs task holdTask\.cancel, .* or executing the action fails with PENDING_ACTION_FAILED$/
    );
    expect(result.warnings).toHaveLength(2);
  });

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
