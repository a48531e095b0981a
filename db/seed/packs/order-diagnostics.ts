import {
  classifier,
  httpTool,
  intent,
  mcpTool,
  objectSchema,
  planner,
  promptTemplate,
  response,
  rule,
} from '../builders';
import type { SeedPack } from '../types';
import { orderProgressRows } from './progress';
import {
  acknowledgedResponse,
  acknowledgedRules,
  acknowledgementRule,
  afterCompletedRule,
  nextMessageRule,
  sharedRows,
} from './shared';

/**
 * §12.7 direct tool example (tool_request → POST_TOOL_EXECUTION rule → ORDER_SUBMITTED_DIAGNOSIS)
 * and §12.3 planner variant without an extraction schema (planner 5101 → POST_AGENT_MCP →
 * COMPLETED). A later message is analyzed anew (rules 54, 55, 58), except an acknowledgement such as "ok thanks",
 * which is answered by response 53 (rules 56, 57, 59). Ids 50–59, tools 5001–5002, planner 5101.
 */
const ORDER = 'ORDER_DIAGNOSTICS';
const TOOL_BASE = '{{env.CONVENGINE_TOOL_DEMO_URL}}';
/** Both tools take one order id (issue #21: the planner is shown this, and nothing else is sent). */
const ORDER_ID_ARGS = objectSchema({ orderId: { type: 'string', pattern: '^ORD-[0-9]{1,12}$' } }, ['orderId']);

export const orderDiagnosticsPack: SeedPack = {
  name: 'order-diagnostics',
  description: 'Order status and async-callback diagnosis with two HTTP tools, direct and through the planner.',
  rows: {
    intents: [
      ...(sharedRows.intents ?? []),
      intent({
        intentCode: ORDER,
        description: 'Diagnose an order: its status and whether the async callback arrived.',
        priority: 40,
        displayName: 'Order diagnostics',
        llmHint: 'Mentions an order id such as ORD-7017, its status, callback or trace.',
      }),
    ],
    classifiers: [
      ...(sharedRows.classifiers ?? []),
      classifier({
        classifierId: 50,
        intentCode: ORDER,
        stateCode: 'UNKNOWN',
        ruleType: 'REGEX',
        // Needs an order id: the bare words "status" or "trace" also appear in other flows.
        pattern: '(?i)\\border\\s+ORD-\\d+\\b',
        priority: 40,
        description: 'A message naming an order id.',
      }),
    ],
    rules: [
      ...(sharedRows.rules ?? []),
      ...(['UNKNOWN', 'IDLE'] as const).map((state, i) =>
        rule({
          ruleId: 50 + i,
          intentCode: ORDER,
          stateCode: state,
          phase: 'POST_CLASSIFIER_INTENT',
          ruleType: 'REGEX',
          matchPattern: '.*',
          action: 'SET_STATE',
          actionValue: 'ANALYZE',
          description: `Analyze the order (from ${state}).`,
        })
      ),
      rule({
        ruleId: 52,
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        phase: 'POST_TOOL_EXECUTION',
        ruleType: 'JSON_PATH',
        matchPattern:
          "$[?(@.context.mcp.toolExecution.status == 'SUCCESS' && @.context.mcp.toolExecution.result.mapped.status == 'SUBMITTED')]",
        action: 'SET_STATE',
        actionValue: 'ORDER_SUBMITTED_DIAGNOSIS',
        description: 'The direct status check says SUBMITTED.',
      }),
      rule({
        ruleId: 53,
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        phase: 'POST_AGENT_MCP',
        ruleType: 'JSON_PATH',
        matchPattern:
          "$[?(@.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '' && @.context.mcp.finalAnswer != 'null')]",
        action: 'SET_STATE',
        actionValue: 'COMPLETED',
        description: 'The planner answered.',
      }),
      afterCompletedRule(
        54,
        ORDER,
        'ANALYZE',
        'A message after a diagnosis is a new question: analyze it, never re-explain the last answer.'
      ),
      nextMessageRule(
        55,
        ORDER,
        'ORDER_SUBMITTED_DIAGNOSIS',
        'ANALYZE',
        "A message after the direct status answer is a new question: analyze it, never re-render the last tool's result."
      ),
      acknowledgementRule(56, ORDER, 'ORDER_SUBMITTED_DIAGNOSIS'),
      acknowledgementRule(57, ORDER, 'COMPLETED'),
      ...acknowledgedRules(58, ORDER, 'ANALYZE'),
    ],
    mcpTools: [
      mcpTool({
        toolId: 5001,
        toolCode: 'mock.order.status',
        toolGroup: 'HTTP_API',
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        description: 'Current status of an order. Args: orderId.',
      }),
      mcpTool({
        toolId: 5002,
        toolCode: 'mock.order.async.trace',
        toolGroup: 'HTTP_API',
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        description: 'Async callback trace of an order (callbackAt is null while pending). Args: orderId.',
      }),
    ],
    mcpHttpTools: [
      httpTool({
        toolId: 5001,
        urlTemplate: `${TOOL_BASE}/orders/status`,
        queryParams: { orderId: '{{args.orderId}}' },
        inputSchema: ORDER_ID_ARGS,
        authKind: 'API_KEY',
        authHeaderName: 'X-API-KEY',
        authSecretEnv: 'CONVENGINE_TOOL_DEMO_API_KEY',
        responseMappingKind: 'FIELD_TEMPLATE',
        responseMapping: { orderId: '$.orderId', status: '$.status' },
      }),
      httpTool({
        toolId: 5002,
        urlTemplate: `${TOOL_BASE}/orders/async-trace`,
        queryParams: { orderId: '{{args.orderId}}' },
        inputSchema: ORDER_ID_ARGS,
        responseMappingKind: 'RAW_JSON',
      }),
    ],
    verboses: orderProgressRows,
    mcpPlanners: [
      planner({
        plannerId: 5101,
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        systemPrompt: [
          'You diagnose orders. Take the order id (ORD-…) from the user message.',
          'First call `mock.order.status` with {"orderId"}; then call `mock.order.async.trace` with {"orderId"} to see whether',
          'the async callback arrived (callbackAt null means pending). Then ANSWER in one or two sentences.',
          'Tool results are in context.mcp.observations. Reply with JSON only:',
          '{"action":"CALL_TOOL"|"ANSWER","tool_code":string|null,"args":{},"answer":string|null,"operation_tag":null}.',
        ].join('\n'),
        userPrompt: [
          'User message: {{user_input}}',
          'Available tools: {{mcp_tools}}',
          'Latest observations: {{mcp_observations}}',
          'Full context: {{context}}',
        ].join('\n'),
      }),
    ],
    promptTemplates: [
      promptTemplate({
        templateId: 50,
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        outputFormat: 'TEXT',
        interactionMode: 'REVIEW',
        systemPrompt: 'Summarize what is known about the order so far and what could not be determined.',
        userPrompt: 'User message: {{user_input}}\nContext: {{context}}',
      }),
      promptTemplate({
        templateId: 51,
        intentCode: ORDER,
        stateCode: 'COMPLETED',
        outputFormat: 'TEXT',
        interactionMode: 'FINAL',
        systemPrompt:
          'Explain the diagnosis to the user in one or two sentences: the order status and whether the async callback arrived.',
        userPrompt: 'Planner answer: {{context.mcp.finalAnswer}}\nTool results: {{context}}',
      }),
    ],
    responses: [
      ...(sharedRows.responses ?? []),
      response({
        responseId: 50,
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        responseType: 'DERIVED',
        derivationHint: 'Be factual.',
      }),
      response({
        responseId: 51,
        intentCode: ORDER,
        stateCode: 'COMPLETED',
        responseType: 'DERIVED',
        derivationHint: 'Mention the order id.',
      }),
      response({
        responseId: 52,
        intentCode: ORDER,
        stateCode: 'ORDER_SUBMITTED_DIAGNOSIS',
        responseType: 'EXACT',
        exactText:
          'Order [[${context.mcp.toolExecution.result.mapped.orderId}]] is SUBMITTED; its async callback has not been confirmed yet.',
      }),
      acknowledgedResponse(
        53,
        ORDER,
        'To check another order, name its id, for example: "Check order ORD-7017 status."'
      ),
    ],
  },
  business: [],
  utterances: [
    'Order ORD-7017 was submitted by admin, callback is still null. Can you check status and trace?',
    'Check order ORD-7017 status.',
  ],
};
