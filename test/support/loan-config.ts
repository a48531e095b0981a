import type { ConfigRows } from '../../core/config/types';
import type { McpHttpToolRow, McpToolRow } from '../../core/config/tool-rows';
import { httpTool, mcpTool, objectSchema, planner } from '../../db/seed/builders';
import { baseConfig } from './base-config';
import { classifierRow, intentRow, responseRow, ruleRow, schemaRow, templateRow } from './config-rows';
import type { McpHarness } from './mcp-harness';
import { answer, FINAL_ANSWER_SET } from './order-config';

/**
 * Test-local Example 2 (§12.4): LOAN_APPLICATION, classifier → ELIGIBILITY_GATE, a schema with
 * customerId / requestedAmount / tenureMonths, four HTTP tools on the demo tool server (the
 * submit tool is an idempotent write) and planner 5202 with the ordered eligibility rules.
 */
export const LOAN = 'LOAN_APPLICATION';
const BASE_URL = '{{env.CONVENGINE_TOOL_DEMO_URL}}';

function loanTool(toolId: number, toolCode: string, extra: Partial<McpToolRow> = {}): McpToolRow {
  return mcpTool({
    toolId,
    toolCode,
    toolGroup: 'HTTP_API',
    intentCode: LOAN,
    stateCode: 'ELIGIBILITY_GATE',
    ...extra,
  });
}

function loanGet(toolId: number, path: string): McpHttpToolRow {
  return httpTool({
    toolId,
    urlTemplate: `${BASE_URL}${path}`,
    queryParams: { customerId: '{{args.customerId}}' },
    inputSchema: objectSchema({ customerId: { type: 'string' } }, ['customerId']),
  });
}

export function loanConfig(
  options: {
    submitNeedsApproval?: boolean;
    approvalTimeoutMs?: number;
    submit?: Partial<McpToolRow>;
    /** The submit's ce_mcp_http_tool settings (timeouts, attempts). */
    submitHttp?: Partial<McpHttpToolRow>;
    rating?: Partial<McpToolRow>;
  } = {}
): Partial<ConfigRows> {
  return baseConfig({
    intents: [intentRow(LOAN, 30)],
    classifiers: [
      classifierRow({ intentCode: LOAN, stateCode: 'ELIGIBILITY_GATE', pattern: '(?i)\\b(apply loan|loan)\\b' }),
    ],
    outputSchemas: [
      schemaRow({
        intentCode: LOAN,
        stateCode: 'ELIGIBILITY_GATE',
        jsonSchema: objectSchema(
          { customerId: { type: 'string' }, requestedAmount: { type: 'number' }, tenureMonths: { type: 'integer' } },
          ['customerId', 'requestedAmount', 'tenureMonths']
        ),
      }),
    ],
    promptTemplates: [
      templateRow({
        intentCode: LOAN,
        stateCode: 'ELIGIBILITY_GATE',
        outputFormat: 'SCHEMA_JSON',
        interactionMode: 'COLLECT',
      }),
    ],
    mcpTools: [
      loanTool(6001, 'loan.credit.rating.check', options.rating),
      loanTool(6002, 'loan.credit.fraud.check'),
      loanTool(6003, 'loan.debt.credit.summary'),
      loanTool(6004, 'loan.application.submit', {
        sideEffect: 'IDEMPOTENT_WRITE',
        requiresApproval: options.submitNeedsApproval ?? false,
        approvalTimeoutMs: options.approvalTimeoutMs ?? 60000,
        ...options.submit,
      }),
    ],
    mcpHttpTools: [
      loanGet(6001, '/loan/credit-rating'),
      loanGet(6002, '/loan/fraud-check'),
      loanGet(6003, '/loan/debt-summary'),
      httpTool({
        toolId: 6004,
        urlTemplate: `${BASE_URL}/loan/applications`,
        httpMethod: 'POST',
        inputSchema: objectSchema(
          { customerId: { type: 'string' }, requestedAmount: { type: 'number' }, tenureMonths: { type: 'integer' } },
          ['customerId']
        ),
        ...options.submitHttp,
      }),
    ],
    mcpPlanners: [
      planner({
        plannerId: 5202,
        intentCode: LOAN,
        stateCode: 'ELIGIBILITY_GATE',
        systemPrompt: [
          'Decide loan eligibility in this order:',
          '1. `loan.credit.rating.check`: a rating of 750 or less → ANSWER with a rejection.',
          '2. `loan.credit.fraud.check`: flagged → ANSWER with a rejection.',
          '3. `loan.debt.credit.summary`: dti above 0.65 → ANSWER that a manual review is needed.',
          '4. `loan.application.submit`, then ANSWER with the application id.',
        ].join('\n'),
        userPrompt: 'Customer: {{context.customerId}}\nObservations: {{mcp_observations}}',
      }),
    ],
    rules: [
      ruleRow({
        ruleId: 601,
        intentCode: LOAN,
        stateCode: 'ELIGIBILITY_GATE',
        phase: 'POST_AGENT_MCP',
        ruleType: 'JSON_PATH',
        matchPattern: FINAL_ANSWER_SET,
        action: 'SET_STATE',
        actionValue: 'COMPLETED',
      }),
    ],
    responses: [
      responseRow({ intentCode: LOAN, stateCode: 'COMPLETED', exactText: '[[${context.mcp.finalAnswer}]]' }),
      responseRow({
        intentCode: LOAN,
        stateCode: 'ELIGIBILITY_GATE',
        exactText: 'Please share customer id, amount and tenure.',
      }),
    ],
  });
}

/** A loan application for CUST-1001, as the loan scenarios send it. */
export const LOAN_MESSAGE = 'Apply loan for customer CUST-1001, amount 350000 for 36 months.';

export function extracted(customerId: string) {
  return { kind: 'SCHEMA', reply: { customerId, requestedAmount: 350000, tenureMonths: 36 } };
}

export function plan(toolCode: string, customerId: string, extraArgs: Record<string, unknown> = {}) {
  return {
    kind: 'PLAN',
    reply: {
      action: 'CALL_TOOL',
      tool_code: toolCode,
      args: { customerId, ...extraArgs },
      answer: null,
      operation_tag: null,
    },
  };
}

/**
 * Sets `mcp` up for a loan application whose submit call waits for an approval (LOAN_MESSAGE parks), and the answer
 * once it is approved; resets the tool server's counters.
 */
export async function scriptSubmitAwaitingApproval(mcp: McpHarness): Promise<void> {
  await mcp.configure(loanConfig({ submitNeedsApproval: true }));
  mcp.toolServer.counters.reset();
  mcp.llm.setScript([
    extracted('CUST-1001'),
    plan('loan.credit.rating.check', 'CUST-1001'),
    plan('loan.application.submit', 'CUST-1001'),
    answer('Submitted LA-90311.'),
  ]);
}
