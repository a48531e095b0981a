/**
 * What the operator decision routes refuse, by code: the approval route (D16), the held-tool route (#22) and the
 * console's decision actions. The codes are core/turn/operator-decision.ts's lists, which the turn's validators and
 * the routes' checks answer with; each must say here when it comes (a Record of every code), so a code cannot be
 * answered without its route's OpenAPI responses naming it.
 */
import {
  APPROVAL_REFUSAL_CODES,
  DECISION_LIMITS,
  DECISION_PROBLEM_CODES,
  HELD_TOOL_REFUSAL_CODES,
  RESULT_PROBLEM_CODES,
  type DecisionProblemCode,
  type DecisionRefusalCode,
} from '../core/turn/operator-decision';
import { badRequestResponse } from './error-responses';

/** A malformed decision (400), checked before the schema so every way of deciding gets the same code. */
const PROBLEM_WHEN: Record<DecisionProblemCode, string> = {
  INVALID_DECISION:
    '`decision` (or `action`) is missing or not one of the values it takes, or the body is not an object',
  INVALID_CALL_INDEX: `\`callIndex\` is not a whole number from 0 to ${DECISION_LIMITS.callIndex} ("0" as text too)`,
  CALL_INDEX_REQUIRED: "an approval without `callIndex`: send the 202's `approval.callIndex`",
  REASON_TOO_LONG: `\`reason\` is over ${DECISION_LIMITS.reasonChars} characters, or not text`,
  DECIDED_BY_TOO_LONG: `\`decidedBy\` is over ${DECISION_LIMITS.decidedByChars} characters, or not text`,
  DECIDED_BY_BLANK: '`decidedBy` is empty, blank or invisible only (leave it out to record `api`)',
  RESULT_REQUIRED: 'markDone without the verified `result`',
  RESULT_NOT_ALLOWED: 'a `result` with anything but markDone (an approval, a retry…), which would be ignored',
  RESULT_INVALID: "markDone's `result` is a number, true/false or blank text: not a tool's result",
  RESULT_TOO_LARGE: `markDone's \`result\` is over ${DECISION_LIMITS.resultBytes} bytes as JSON`,
  INVALID_TEXT: 'a text field holds what cannot be stored (a NUL, a lone surrogate) (`details.field`)',
  TOO_DEEP: "markDone's `result` nests too deep (`details.field`)",
};

/** A well-formed decision the turn's state refuses (409). */
const REFUSAL_WHEN: Record<DecisionRefusalCode, string> = {
  STALE_DECISION: 'the turn waits on another call than the `callIndex` named, which was never decided',
  NOT_AWAITING_APPROVAL: 'the turn runs and waits for no approval now, and did not decide the call named',
  APPROVAL_ALREADY_DECIDED: 'the call named was approved or rejected already (the message says how the turn went on)',
  APPROVAL_EXPIRED: 'the call named waited past its `expiresAt`; the turn went on without it',
  APPROVAL_NOT_PENDING: 'the turn has ended and never decided the call named',
  NOT_HELD: 'the turn holds no tool call now (resolved already, past its `expiresAt`, or ended)',
};

const lines = <C extends string>(codes: readonly C[], when: Record<C, string>) => codes.map((c) => `${c}: ${when[c]}`);

/** The problems an approval can have: all but a result's, which RESULT_NOT_ALLOWED refuses whole. */
const APPROVAL_PROBLEMS = DECISION_PROBLEM_CODES.filter(
  (code) => !RESULT_PROBLEM_CODES.includes(code) || code === 'RESULT_NOT_ALLOWED'
);

/**
 * The 400 of a decision route: the decision's own codes first (checked before the schema), then INVALID_TURN_ID when
 * its path names the turn by its workflow id (`turn`), then what any body gets (VALIDATION_FAILED for any other field:
 * an unknown one, `reason` of another type…).
 */
const decisionBadRequest = (problems: readonly DecisionProblemCode[], turn: boolean) =>
  badRequestResponse(
    { body: true, checked: true, query: false, turn },
    ...lines(problems, PROBLEM_WHEN).map((line) => `${line} (checked before the schema, \`details.field\`)`)
  );

export const APPROVAL_DECISION_REFUSALS = {
  badRequest: decisionBadRequest(APPROVAL_PROBLEMS, false),
  conflicts: [
    ...lines(APPROVAL_REFUSAL_CODES, REFUSAL_WHEN),
    'APPROVAL_REJECTED: the turn refused the decision without a code of its own',
  ],
};

export const HELD_TOOL_DECISION_REFUSALS = {
  badRequest: decisionBadRequest(
    DECISION_PROBLEM_CODES.filter((code) => code !== 'CALL_INDEX_REQUIRED'),
    true
  ),
  conflicts: [
    ...lines(HELD_TOOL_REFUSAL_CODES, REFUSAL_WHEN),
    'DECISION_REFUSED: the turn refused the decision without a code of its own',
  ],
};

/** The console's decision actions: any decision's codes (approve, reject, held-*), and either kind's conflicts. */
export const CONSOLE_DECISION_REFUSALS = {
  problems: lines(DECISION_PROBLEM_CODES, PROBLEM_WHEN),
  conflicts: lines([...new Set([...APPROVAL_REFUSAL_CODES, ...HELD_TOOL_REFUSAL_CODES])], REFUSAL_WHEN),
};
