import type { VerboseRow } from '../../../core/config/types';
import { verbose } from '../builders';

/**
 * Progress messages (ce_verbose) of the planner-loop conversations: what the user reads while the
 * planner calls tools (issue #21). Texts of the loan rows are the Java engine's own seed's.
 */
function toolCall(verboseId: number, intentCode: string, toolCode: string, message: string, errorMessage: string) {
  return verbose({
    verboseId,
    intentCode,
    stateCode: 'ANY',
    stepValue: 'McpToolStep',
    determinant: 'MCP_TOOL_CALL',
    toolCode,
    message,
    errorMessage,
    priority: 10,
  });
}

function finalAnswer(verboseId: number, intentCode: string, message: string): VerboseRow {
  return verbose({
    verboseId,
    intentCode,
    stateCode: 'ANY',
    stepValue: 'McpToolStep',
    determinant: 'MCP_FINAL_ANSWER',
    message,
    errorMessage: 'Could not finish the checks.',
    priority: 90,
  });
}

const LOAN = 'LOAN_APPLICATION';

/** Example 3's optional rows 201–203 (§12.5), plus one per credit check and the final answer. */
export const loanProgressRows: VerboseRow[] = [
  verbose({
    verboseId: 201,
    intentCode: LOAN,
    stateCode: 'ANY',
    stepValue: 'CorrectionStep',
    determinant: 'CONFIRM_ACCEPT',
    message: 'Confirmed. Starting your loan application.',
    priority: 20,
  }),
  verbose({
    verboseId: 202,
    intentCode: LOAN,
    stateCode: 'ANY',
    stepValue: 'CorrectionStep',
    determinant: 'CORRECTION_PATCH_APPLIED',
    message: 'Updated {{field}}.',
    priority: 20,
  }),
  toolCall(203, LOAN, 'loan.application.submit', 'Submitting loan application.', 'Loan submission failed.'),
  toolCall(
    204,
    LOAN,
    'loan.credit.rating.check',
    'Checking credit rating from credit union.',
    'Unable to fetch credit rating at the moment.'
  ),
  toolCall(205, LOAN, 'loan.credit.fraud.check', 'Running fraud verification.', 'Fraud verification failed.'),
  toolCall(
    206,
    LOAN,
    'loan.debt.credit.summary',
    'Analyzing debt-to-income and available credit.',
    'Unable to fetch debt and credit summary right now.'
  ),
  finalAnswer(207, LOAN, 'Loan workflow completed.'),
];

const ORDER = 'ORDER_DIAGNOSTICS';

export const orderProgressRows: VerboseRow[] = [
  toolCall(5201, ORDER, 'mock.order.status', 'Looking up order status…', 'Could not read the order status.'),
  toolCall(5202, ORDER, 'mock.order.async.trace', 'Tracing the async callback…', 'Could not trace the callback.'),
  finalAnswer(5203, ORDER, 'Diagnosis ready.'),
];

const MOVE = 'MOVE_CONNECTIONS';

export const moveProgressRows: VerboseRow[] = [
  toolCall(4201, MOVE, 'postgres.move_status', 'Reading the move request…', 'Could not read the move request.'),
];
