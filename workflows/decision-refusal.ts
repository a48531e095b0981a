import { ApplicationFailure } from '@temporalio/workflow';
import type { DecisionProblem, DecisionProblemCode, DecisionRefusalCode } from '../core/turn/operator-decision';

/**
 * An operator's decision refused by an update's validator (or handler): an ApplicationFailure typed by its code
 * (STALE_DECISION, NOT_HELD, APPROVAL_ALREADY_DECIDED…) and not retryable, since the same decision is refused again.
 * The message stays "CODE: explanation", as the API reads it (api/errors.ts refusedUpdate). Its code is one of the
 * listed ones (core/turn/operator-decision.ts), which the API documents.
 */
export function decisionRefusal(
  code: DecisionRefusalCode | DecisionProblemCode,
  explanation: string
): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`${code}: ${explanation}`, code);
}

/** A malformed decision (core/turn/operator-decision.ts), refused as decisionRefusal does. */
export function problemRefusal(problem: DecisionProblem): ApplicationFailure {
  return decisionRefusal(problem.code, problem.message);
}
