import type { Env } from '../config/env';

/** A failure's chain as a log line or a span keeps it without its text: each link's class, failure type and code. */
export interface FailureOutline {
  type: string;
  failureType?: string;
  nonRetryable?: boolean;
  /** A driver's or Node's code (SQLSTATE 22001, ECONNREFUSED): what a 503's line is diagnosed by. */
  code?: string;
  cause?: FailureOutline;
}

/** A code is a short token; anything longer or with spaces is text, and stays out. */
const CODE = /^[A-Za-z0-9_.-]{1,32}$/;

/** How deep a cause chain is followed: a turn's failures nest a few levels (workflow, activity, application). */
const OUTLINE_DEPTH = 8;

/**
 * A failure without its message and stack: they may quote what a user wrote (a tool's error echoing its arguments),
 * and with PAYLOAD_ENCRYPTION_KEYS set the conversation is kept from whoever lacks the key, so the SDK's own
 * "Workflow failed" and "Activity failed" lines, the engine's `step failed`, the API's error lines and the spans of
 * failed steps must not carry them in clear (docs/security.md §8).
 */
export function failureOutline(error: unknown, depth = 0): FailureOutline {
  const failure = (error ?? {}) as {
    constructor?: { name?: unknown };
    type?: unknown;
    nonRetryable?: unknown;
    code?: unknown;
  };
  const cause = (error as { cause?: unknown } | null)?.cause;
  const name = typeof failure.constructor?.name === 'string' ? failure.constructor.name : typeof error;
  return {
    type: name,
    ...(typeof failure.type === 'string' ? { failureType: failure.type } : {}),
    ...(typeof failure.nonRetryable === 'boolean' ? { nonRetryable: failure.nonRetryable } : {}),
    ...(typeof failure.code === 'string' && CODE.test(failure.code) ? { code: failure.code } : {}),
    ...(cause !== undefined && cause !== null && depth < OUTLINE_DEPTH
      ? { cause: failureOutline(cause, depth + 1) }
      : {}),
  };
}

/**
 * Whether a process's failure lines and spans keep a failure's outline only (failureOutline): with
 * PAYLOAD_ENCRYPTION_KEYS set, the conversation is kept from whoever lacks the key, and a failure's text may quote
 * it. The SDK's lines (temporal-runtime.ts), the engine's `step failed` (activity-interceptor.ts), the spans
 * (tracing.ts) and the API's error lines (api/error-handler.ts) follow this one rule. A module of its own: the API
 * reads it without loading the SDK's worker runtime.
 */
export function withoutFailureText(env: Pick<Env, 'PAYLOAD_ENCRYPTION_KEYS'>): boolean {
  return env.PAYLOAD_ENCRYPTION_KEYS !== undefined;
}
