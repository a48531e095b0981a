import type { McpHttpToolRow, McpToolRow } from '../../../core/config/tool-rows';
import { httpTool, mcpTool, objectSchema } from '../builders';

/**
 * The four-tool chain of the confirmation-first loan pack (Example 3), which its planner (6202) calls in order: three
 * checks of the customer, then the submit, all on the demo tool server.
 */
const LOAN = 'LOAN_APPLICATION';
const TOOL_BASE = '{{env.CONVENGINE_TOOL_DEMO_URL}}';
export const SUBMIT = 'loan.application.submit';

function loanTool(toolId: number, toolCode: string, description: string, sideEffect = 'READ_ONLY') {
  return mcpTool({
    toolId,
    toolCode,
    toolGroup: 'HTTP_API',
    intentCode: LOAN,
    stateCode: 'PROCESS_APPLICATION',
    description,
    sideEffect,
    // A write the core-banking API did not take waits for an operator instead of being answered away (#22).
    onRetriesExhausted: sideEffect === 'READ_ONLY' ? 'ANSWER' : 'HOLD',
  });
}

// Input schemas (issue #21): the planner is shown them, and a call with other arguments never runs.
const CUSTOMER_ID = { type: ['string', 'integer'], pattern: '^[0-9]{1,12}$', minimum: 0, maxLength: 12 };

function loanGet(toolId: number, path: string): McpHttpToolRow {
  return httpTool({
    toolId,
    httpMethod: 'GET',
    urlTemplate: `${TOOL_BASE}${path}`,
    queryParams: { customerId: '{{args.customerId}}' },
    inputSchema: objectSchema({ customerId: CUSTOMER_ID }, ['customerId']),
    responseMappingKind: 'RAW_JSON',
  });
}

export const loanMcpTools: McpToolRow[] = [
  loanTool(10201, 'loan.credit.rating.check', 'Credit rating of a customer. Args: customerId.'),
  loanTool(10202, 'loan.credit.fraud.check', 'Fraud screening of a customer. Args: customerId.'),
  loanTool(10203, 'loan.debt.credit.summary', 'Debt-to-income ratio and available credit. Args: customerId.'),
  loanTool(
    10204,
    SUBMIT,
    'Submits the application. Args: customerId, requestedAmount, tenureMonths.',
    'IDEMPOTENT_WRITE'
  ),
];

export const loanHttpTools: McpHttpToolRow[] = [
  loanGet(10201, '/loan/credit-rating'),
  loanGet(10202, '/loan/fraud-check'),
  loanGet(10203, '/loan/debt-summary'),
  // A null body_template sends the args, as input_schema admits them, as the JSON body; the
  // executor adds the Idempotency-Key.
  httpTool({
    toolId: 10204,
    httpMethod: 'POST',
    urlTemplate: `${TOOL_BASE}/loan/applications`,
    inputSchema: objectSchema(
      {
        customerId: CUSTOMER_ID,
        requestedAmount: { type: 'number', exclusiveMinimum: 0, maximum: 100000000 },
        tenureMonths: { type: 'integer', minimum: 1, maximum: 600 },
      },
      ['customerId', 'requestedAmount', 'tenureMonths']
    ),
    responseMappingKind: 'RAW_JSON',
  }),
];
