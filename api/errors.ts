import { DECISION_PROBLEM_CODES, type DecisionProblem } from '../core/turn/operator-decision';
import type { ReadinessProbe } from './ports';

/** A client-visible error: the envelope `{error:{code, message, details?}}` with an HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(400, code, message, details);
export const notFound = (code: string, message: string) => new ApiError(404, code, message);
export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(409, code, message, details);

/** A request that reaches the API while it closes (on a connection still open): another process should take it. */
export const apiStopping = () =>
  new ApiError(503, 'API_STOPPING', 'This API process is stopping; send the request again (to another one).');

/**
 * A route about to start a turn (a message, a retry) refuses it with 503 and the prerequisite's code when the last
 * check found one missing or unreachable: at once, and before anything is sent that a server could run later.
 */
export async function refuseBlockedTurn(readiness: ReadinessProbe): Promise<void> {
  const blocked = await readiness.turnBlocker?.();
  if (blocked) throw new ApiError(503, blocked.code, blocked.message);
}

/**
 * A 400 VALIDATION_FAILED's `details`: which input the route's schema refused (`in`: body, query, path or header),
 * which field of it (`field`), and the JSON Schema keyword it failed (`problem`): api/error-handler.ts.
 */
export interface ValidationDetails {
  in: 'body' | 'query' | 'path' | 'header';
  field: string;
  problem: string;
}

export const validationFailed = (message: string, details: ValidationDetails) =>
  badRequest('VALIDATION_FAILED', message, { ...details });

export interface ErrorEnvelope {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export function envelope(code: string, message: string, details?: Record<string, unknown>): ErrorEnvelope {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}

/**
 * A turn's update validator refused an operator decision with "CODE: explanation" (workflows/tool-hold.ts,
 * workflows/turn-state.ts): a malformed decision (core/turn/operator-decision.ts's codes, INVALID_* among
 * them) is the caller's 400; anything else (NOT_HELD, STALE_DECISION, APPROVAL_ALREADY_DECIDED…) conflicts
 * with the turn's state, a 409.
 */
const isBadInput = (code: string): boolean =>
  code.startsWith('INVALID_') || (DECISION_PROBLEM_CODES as readonly string[]).includes(code);

export function refusedUpdate(text: string, fallbackCode: string): ApiError {
  const match = /^([A-Z_]+): (.*)$/s.exec(text);
  const code = match?.[1] ?? fallbackCode;
  const message = match?.[2] ?? text;
  return isBadInput(code) ? badRequest(code, message) : conflict(code, message);
}

/** A malformed operator decision (core/turn/operator-decision.ts) as the 400 the turn's validator would give. */
export function refuseMalformedDecision(problem: DecisionProblem | null): void {
  if (problem) throw badRequest(problem.code, problem.message, { field: problem.field });
}
