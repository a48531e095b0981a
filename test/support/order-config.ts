import type { ConfigRows } from '../../core/config/types';
import type { McpHttpToolRow, McpToolRow } from '../../core/config/tool-rows';
import { httpTool, mcpTool, objectSchema, planner } from '../../db/seed/builders';
import { baseConfig } from './base-config';
import { classifierRow, configRow, intentRow, responseRow, ruleRow } from './config-rows';

/**
 * Test-local ORDER_DIAGNOSTICS config for the planner and direct-tool scenarios (§14 #32–45): a
 * classifier straight into ANALYZE, the two HTTP tools on the demo tool server, planner 5101,
 * POST_AGENT_MCP rules for answered / blocked / failed runs and EXACT responses, so the only
 * LLM calls of a turn are the planner's.
 */
export const ORDER = 'ORDER_DIAGNOSTICS';
const BASE_URL = '{{env.CONVENGINE_TOOL_DEMO_URL}}';

export const ORDER_STATUS: McpToolRow = mcpTool({
  toolId: 5001,
  toolCode: 'mock.order.status',
  toolGroup: 'HTTP_API',
  intentCode: ORDER,
  stateCode: 'ANALYZE',
  description: 'Current status of an order. Args: orderId.',
});
export const ORDER_TRACE: McpToolRow = mcpTool({
  toolId: 5002,
  toolCode: 'mock.order.async.trace',
  toolGroup: 'HTTP_API',
  intentCode: ORDER,
  stateCode: 'ANALYZE',
  description: 'Async callback trace. Args: orderId.',
});

export const ORDER_HTTP_TOOLS: McpHttpToolRow[] = [
  httpTool({
    toolId: 5001,
    urlTemplate: `${BASE_URL}/orders/status`,
    queryParams: { orderId: '{{args.orderId}}' },
    // verbose is accepted (and not sent): scenario 38 repeats a call with it in another key order.
    inputSchema: objectSchema({ orderId: { type: 'string' }, verbose: { type: 'boolean' } }, ['orderId']),
    authKind: 'API_KEY',
    authSecretEnv: 'CONVENGINE_TOOL_DEMO_API_KEY',
    responseMappingKind: 'FIELD_TEMPLATE',
    responseMapping: { orderId: '$.orderId', status: '$.status' },
    maxAttempts: 1,
  }),
  httpTool({
    toolId: 5002,
    urlTemplate: `${BASE_URL}/orders/async-trace`,
    queryParams: { orderId: '{{args.orderId}}' },
    inputSchema: objectSchema({ orderId: { type: 'string' } }, ['orderId']),
  }),
];

export const FINAL_ANSWER_SET = "$[?(@.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]";
export const BLOCKED = "$[?(@.context.mcp.lifecycle.finished == true && @.context.mcp.lifecycle.outcome == 'BLOCKED')]";
export const ERRORED = '$[?(@.context.mcp.lifecycle.error == true)]';

export function orderConfig(
  extra: Partial<ConfigRows> = {},
  options: { dialogueActMode?: string } = {}
): Partial<ConfigRows> {
  const rows: Partial<ConfigRows> = {
    intents: [intentRow(ORDER, 40)],
    classifiers: [classifierRow({ intentCode: ORDER, stateCode: 'ANALYZE', pattern: '(?i)\\bORD-\\d+' })],
    mcpTools: [ORDER_STATUS, ORDER_TRACE],
    mcpHttpTools: ORDER_HTTP_TOOLS,
    mcpPlanners: [
      planner({
        plannerId: 5101,
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        systemPrompt: 'Diagnose the order with `mock.order.status` and `mock.order.async.trace`. Reply with JSON only.',
        userPrompt: 'User: {{user_input}}\nTools: {{mcp_tools}}\nObservations: {{mcp_observations}}',
      }),
    ],
    rules: [
      ruleRow({
        ruleId: 501,
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        phase: 'POST_AGENT_MCP',
        ruleType: 'JSON_PATH',
        matchPattern: FINAL_ANSWER_SET,
        action: 'SET_STATE',
        actionValue: 'COMPLETED',
      }),
      ruleRow({
        ruleId: 502,
        intentCode: ORDER,
        stateCode: 'ANY',
        phase: 'POST_AGENT_MCP',
        ruleType: 'JSON_PATH',
        matchPattern: BLOCKED,
        action: 'SET_INPUT_PARAM',
        actionValue: 'guard_hit:true',
      }),
      ruleRow({
        ruleId: 503,
        intentCode: ORDER,
        stateCode: 'ANY',
        phase: 'POST_AGENT_MCP',
        ruleType: 'JSON_PATH',
        matchPattern: ERRORED,
        action: 'SET_INPUT_PARAM',
        actionValue: 'tool_failed:true',
      }),
      ruleRow({
        ruleId: 504,
        intentCode: ORDER,
        stateCode: 'COMPLETED',
        phase: 'PRE_RESPONSE_RESOLUTION',
        ruleType: 'REGEX',
        matchPattern: '.*',
        action: 'SET_INPUT_PARAM',
        actionValue: 'closed:true',
      }),
      ruleRow({
        ruleId: 505,
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        phase: 'POST_TOOL_EXECUTION',
        ruleType: 'JSON_PATH',
        matchPattern:
          "$[?(@.context.mcp.toolExecution.status == 'SUCCESS' && @.context.mcp.toolExecution.result.mapped.status == 'SUBMITTED')]",
        action: 'SET_STATE',
        actionValue: 'ORDER_SUBMITTED_DIAGNOSIS',
      }),
    ],
    responses: [
      responseRow({ intentCode: ORDER, stateCode: 'COMPLETED', exactText: 'Done: [[${context.mcp.finalAnswer}]]' }),
      responseRow({
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        exactText: 'Order analysis is not finished yet.',
      }),
      responseRow({
        intentCode: ORDER,
        stateCode: 'ORDER_SUBMITTED_DIAGNOSIS',
        exactText: 'Order [[${context.mcp.toolExecution.result.mapped.orderId}]] is SUBMITTED.',
      }),
    ],
  };
  for (const [table, list] of Object.entries(extra) as [keyof ConfigRows, unknown[]][]) {
    (rows as Record<string, unknown[]>)[table] = [...((rows[table] as unknown[] | undefined) ?? []), ...list];
  }
  return baseConfig(rows, options);
}

export function maxLoops(n: number) {
  return configRow('McpToolStep', 'MCP_TOOL_MAX_LOOPS', String(n));
}

export function callTool(
  toolCode: string | null,
  args: Record<string, unknown> = {},
  extra: Record<string, unknown> = {}
) {
  return {
    kind: 'PLAN',
    reply: { action: 'CALL_TOOL', tool_code: toolCode, args, answer: null, operation_tag: null, ...extra },
  };
}

export function answer(text: string) {
  return { kind: 'PLAN', reply: { action: 'ANSWER', tool_code: null, args: {}, answer: text, operation_tag: null } };
}
