import { INT32_MAX } from '../int32';
import type { Json } from '../json';
import { firstTextProblem } from '../text/unsafe-text';

/**
 * The rules for a person's decision on a parked turn: an approval (D16) or a held tool call (#22).
 * The turn's update validators enforce them (workflows/turn-state.ts, workflows/tool-hold.ts), so a
 * decision sent any way — the API, the console, `convengine sre`, `temporal workflow update` — meets
 * the same limits before it reaches history; the API schemas, the console and the CLI take their
 * enums and numbers from here only to refuse earlier, with the same words.
 */

/** What an operator may do with a held call: run it again, give it up, end the turn, or record its result. */
export const HELD_TOOL_ACTIONS = ['retry', 'skip', 'fail', 'markDone'] as const;
export type HeldToolDecisionAction = (typeof HELD_TOOL_ACTIONS)[number];

export const APPROVAL_DECISIONS = ['approve', 'reject'] as const;
export type ApprovalDecisionAction = (typeof APPROVAL_DECISIONS)[number];

export const DECISION_LIMITS = {
  /** Characters of a reason: a sentence or two for the audit row and the decision log, not a document. */
  reasonChars: 2000,
  /** Characters of who decided: a user name or a tool's name. */
  decidedByChars: 200,
  /**
   * UTF-8 bytes of markDone's result as JSON. It is written to the turn's history, the tool's result
   * and the TOOL_HOLD_RESOLVED row, and is what an operator verified upstream — an id and a status,
   * not a payload; the tools' own results are far smaller.
   */
  resultBytes: 16 * 1024,
  /**
   * A call index counts a turn's planner calls (0 is a request's direct call), bounded by
   * MCP_TOOL_MAX_LOOPS, an int setting: a bigger number names no call that can exist.
   */
  callIndex: INT32_MAX,
} as const;

/** Why a decision is refused; every code is the caller's mistake (a 400, a usage error), never the turn's state. */
export type DecisionProblemCode =
  | 'INVALID_DECISION'
  | 'INVALID_CALL_INDEX'
  | 'CALL_INDEX_REQUIRED'
  | 'REASON_TOO_LONG'
  | 'DECIDED_BY_TOO_LONG'
  | 'DECIDED_BY_BLANK'
  | 'RESULT_REQUIRED'
  | 'RESULT_NOT_ALLOWED'
  | 'RESULT_INVALID'
  | 'RESULT_TOO_LARGE'
  | 'INVALID_TEXT'
  | 'TOO_DEEP';

export const DECISION_PROBLEM_CODES: readonly DecisionProblemCode[] = [
  'INVALID_DECISION',
  'INVALID_CALL_INDEX',
  'CALL_INDEX_REQUIRED',
  'REASON_TOO_LONG',
  'DECIDED_BY_TOO_LONG',
  'DECIDED_BY_BLANK',
  'RESULT_REQUIRED',
  'RESULT_NOT_ALLOWED',
  'RESULT_INVALID',
  'RESULT_TOO_LARGE',
  'INVALID_TEXT',
  'TOO_DEEP',
];

/** The problems only a held call's markDone (its result) can have: an approval carries no result. */
export const RESULT_PROBLEM_CODES: readonly DecisionProblemCode[] = [
  'RESULT_REQUIRED',
  'RESULT_INVALID',
  'RESULT_TOO_LARGE',
  'TOO_DEEP',
];

/**
 * Why a well-formed decision is refused by where the turn stands (a 409, never the caller's form): the approval's
 * (workflows/turn-state.ts; APPROVAL_NOT_PENDING from the API, for a turn that ended without deciding the call) and
 * the held call's (workflows/tool-hold.ts). The API documents each from these lists (api/decision-refusals.ts).
 */
export const APPROVAL_REFUSAL_CODES = [
  'STALE_DECISION',
  'NOT_AWAITING_APPROVAL',
  'APPROVAL_ALREADY_DECIDED',
  'APPROVAL_EXPIRED',
  'APPROVAL_NOT_PENDING',
] as const;
export const HELD_TOOL_REFUSAL_CODES = ['NOT_HELD', 'STALE_DECISION'] as const;
export type DecisionRefusalCode = (typeof APPROVAL_REFUSAL_CODES)[number] | (typeof HELD_TOOL_REFUSAL_CODES)[number];

export interface DecisionProblem {
  code: DecisionProblemCode;
  message: string;
  /** The field at fault, for the API's error details. */
  field: string;
}

/** Fields every decision may carry; typed loosely, as it arrives from outside. */
interface DecisionFields {
  reason?: unknown;
  decidedBy?: unknown;
  callIndex?: unknown;
  result?: unknown;
}

const problem = (field: string, code: DecisionProblemCode, message: string): DecisionProblem => ({
  field,
  code,
  message,
});

/** The UTF-8 length of a value's JSON; core has no Buffer, and the workflow sandbox has TextEncoder. */
export function jsonBytes(value: Json): number {
  return new TextEncoder().encode(JSON.stringify(value)).byteLength;
}

/**
 * Characters as the docs and the API's schemas (ajv's maxLength) count them: code points, so an emoji is one, not
 * the two UTF-16 units of String.length. A text no longer than `max` in units is no longer in code points.
 */
function characters(text: string, max: number): number {
  return text.length <= max ? text.length : [...text].length;
}

function textProblem(name: string, value: unknown, max: number, code: DecisionProblemCode): DecisionProblem | null {
  if (value == null) return null;
  if (typeof value !== 'string') return problem(name, 'INVALID_DECISION', `${name} must be text.`);
  const chars = characters(value, max);
  return chars > max ? problem(name, code, `${name} must be at most ${max} characters (got ${chars}).`) : null;
}

/** Nothing a reader sees: white space and format characters (zero-width spaces, joiners, direction marks). */
const INVISIBLE_ONLY = /^[\s\p{Cf}]*$/u;

/**
 * A decision names who made it, or leaves decidedBy out (the API records `api`): empty, blank or invisible text would
 * record an approval, or a held call's resolution, by no one.
 */
function blankDecidedByProblem(decidedBy: unknown): DecisionProblem | null {
  return typeof decidedBy === 'string' && INVISIBLE_ONLY.test(decidedBy)
    ? problem('decidedBy', 'DECIDED_BY_BLANK', 'decidedBy must name who decides, not be blank (or be left out).')
    : null;
}

/** What every decision shares: reason, decidedBy (named, not blank), callIndex, and text PostgreSQL can store. */
function commonProblem(input: DecisionFields): DecisionProblem | null {
  const text =
    textProblem('reason', input.reason, DECISION_LIMITS.reasonChars, 'REASON_TOO_LONG') ??
    textProblem('decidedBy', input.decidedBy, DECISION_LIMITS.decidedByChars, 'DECIDED_BY_TOO_LONG') ??
    blankDecidedByProblem(input.decidedBy);
  if (text) return text;
  const index = input.callIndex;
  const whole = typeof index === 'number' && Number.isInteger(index) && index >= 0;
  if (index !== undefined && !(whole && index <= DECISION_LIMITS.callIndex)) {
    return problem(
      'callIndex',
      'INVALID_CALL_INDEX',
      `callIndex must be a whole number from 0 (a request's direct tool call) to ${DECISION_LIMITS.callIndex}.`
    );
  }
  const unsafe = firstTextProblem({ reason: input.reason, decidedBy: input.decidedBy, result: input.result });
  return unsafe ? problem(unsafe.field, unsafe.code, unsafe.message) : null;
}

/**
 * The first problem of the fields every decision shares (reason, decidedBy, callIndex, and text PostgreSQL can store),
 * whatever the decision; null for a body that is not an object, which its route's schema refuses. The console's
 * actions check these before their schema (api/routes/console/actions.ts), as the decision routes check the whole
 * decision, so an over-long reason or a negative callIndex gets the same code on every route; the rest of a console
 * decision is checked inside its audited run.
 */
export function decisionFieldsProblem(input: unknown): DecisionProblem | null {
  return isObject(input) ? commonProblem(input) : null;
}

/** Only markDone carries a result: the one it records instead of calling the tool again. */
export const takesResult = (action: HeldToolDecisionAction): boolean => action === 'markDone';

/**
 * A result sent with any other operator action (an approval, a held call's retry, a console action) would be
 * ignored: it is refused instead, so the caller does not believe it was recorded.
 */
export function unwantedResultProblem(action: string, result: unknown): DecisionProblem | null {
  return result === undefined
    ? null
    : problem('result', 'RESULT_NOT_ALLOWED', `Only markDone takes a result, not ${action}.`);
}

/**
 * What a verified result can be: what the tool would have returned, or for an HTTP tool the upstream's response
 * body, which its response mapping reads (activities/tools/dispatch.ts verifiedToolResult) — a JSON object or list,
 * or the body as text for a text response. null, blank text, a number or true/false verify nothing of a call's
 * outcome: null is no result (RESULT_REQUIRED), the others RESULT_INVALID.
 */
function verifiedResultProblem(result: unknown): DecisionProblem | null {
  if (result === undefined || result === null) {
    return problem(
      'result',
      'RESULT_REQUIRED',
      'markDone needs the verified result (result): the outcome you checked upstream, e.g. {"applicationId": "LA-1"}.'
    );
  }
  const text = typeof result === 'string';
  if ((text && result.trim() !== '') || (!text && typeof result === 'object')) return null;
  return problem(
    'result',
    'RESULT_INVALID',
    "result must be a JSON object or list (what the tool returns, or an HTTP tool's response body), or a text " +
      'response body that is not blank.'
  );
}

function resultProblem(action: HeldToolDecisionAction, result: unknown): DecisionProblem | null {
  if (!takesResult(action)) return unwantedResultProblem(action, result);
  const invalid = verifiedResultProblem(result);
  if (invalid) return invalid;
  const bytes = jsonBytes(result as Json);
  const max = DECISION_LIMITS.resultBytes;
  return bytes > max
    ? problem('result', 'RESULT_TOO_LARGE', `result must be at most ${max} bytes of JSON (got ${bytes}).`)
    : null;
}

const isObject = (input: unknown): input is Record<string, unknown> =>
  input !== null && typeof input === 'object' && !Array.isArray(input);

/** The first reason a held-tool decision (#22) is malformed, or null; says nothing of the turn's state. */
export function heldToolDecisionProblem(input: unknown): DecisionProblem | null {
  if (!isObject(input)) return problem('decision', 'INVALID_DECISION', 'the decision must be an object.');
  const action = input['action'];
  if (!HELD_TOOL_ACTIONS.includes(action as HeldToolDecisionAction)) {
    return problem('action', 'INVALID_DECISION', `action must be one of ${HELD_TOOL_ACTIONS.join(', ')}.`);
  }
  return commonProblem(input) ?? resultProblem(action as HeldToolDecisionAction, input['result']);
}

/** The first reason an approval decision (D16) is malformed, or null. An approval carries no result. */
export function approvalDecisionProblem(input: unknown): DecisionProblem | null {
  if (!isObject(input)) return problem('decision', 'INVALID_DECISION', 'the decision must be an object.');
  if (!APPROVAL_DECISIONS.includes(input['decision'] as ApprovalDecisionAction)) {
    return problem('decision', 'INVALID_DECISION', `decision must be one of ${APPROVAL_DECISIONS.join(', ')}.`);
  }
  return unwantedResultProblem(input['decision'] as ApprovalDecisionAction, input['result']) ?? commonProblem(input);
}

/**
 * An approval sent through the API or the console must name the call it decides: the `callIndex` the 202 or the
 * console showed. Without it, a decision that arrives after the turn moved on (a second operator, a retried
 * request) would approve whatever call the turn waits on then, a later one nobody saw. The update itself keeps it
 * optional (`temporal workflow update`, an API of an older release while a new worker rolls out).
 */
export function namedApprovalProblem(input: unknown): DecisionProblem | null {
  const malformed = approvalDecisionProblem(input);
  if (malformed || !isObject(input) || input['callIndex'] !== undefined) return malformed;
  return problem(
    'callIndex',
    'CALL_INDEX_REQUIRED',
    'callIndex must name the call you decide (approval.callIndex of the 202, or the call the console shows).'
  );
}

/** The refusal as the update validators throw it, "CODE: explanation" (api/errors.ts refusedUpdate reads it back). */
export function describeProblem(p: DecisionProblem): string {
  return `${p.code}: ${p.message}`;
}
