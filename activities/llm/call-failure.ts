import { STATUS_CODES } from 'node:http';
import Anthropic, { type APIError } from '@anthropic-ai/sdk';
import { EngineError, ErrorType } from '../../core/errors';
import type { LlmRequest } from '../../core/llm';

/**
 * An LLM call that failed, as the engine says it. The SDK's own message is `401 {body}`: whatever the provider, or a
 * proxy behind ANTHROPIC_BASE_URL, answered, which can echo the request's headers (the API key) or its prompt. This
 * message goes to the logs, spans, audit rows, ce_llm_call_log, Temporal's history and the caller's SSE stream, so it
 * carries only facts the engine can vouch for: the status and its reason phrase, which kind of server answered, the
 * provider's error type when it is one Anthropic documents, the request id when it has the provider's form, or the
 * transport failure's class and code. No part of the body or the headers is kept anywhere (docs/security.md, "Failure
 * text"); the request id finds the call in the provider's console.
 */

/** The error types Anthropic documents (docs.claude.com/en/api/errors); any other is left out of the message. */
const PROVIDER_ERROR_TYPES: ReadonlySet<string> = new Set([
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'timeout_error',
  'api_error',
  'overloaded_error',
]);

/** Anthropic's request ids: `req_` and letters and digits (`req_018EeWyXxfu5pfWkrYcMdjWG`). */
const REQUEST_ID = /^req_[A-Za-z0-9]{1,64}$/;

/** A system error's code (ECONNREFUSED, UND_ERR_SOCKET, ERR_TLS_CERT_ALTNAME_INVALID). */
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
/** A JavaScript class name (TimeoutError, SyntaxError). */
const CLASS_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

/**
 * An error's own field, read without `instanceof Error`: fetch's errors come from Node's own realm, which is not the
 * one of the code that catches them under a test runner's sandbox.
 */
function fieldOf(err: unknown, field: 'code' | 'name' | 'cause'): unknown {
  return typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[field] : undefined;
}

/** The first code in an error's cause chain (fetch's TypeError wraps the socket error that has it). */
function causeCode(err: unknown): string | null {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current !== undefined; depth++) {
    const code = fieldOf(current, 'code');
    if (typeof code === 'string' && CODE.test(code)) return code;
    current = fieldOf(current, 'cause');
  }
  return null;
}

/**
 * Which server a call went to, as an operator tells them apart: never its URL, which may hold a password or a
 * token in its query.
 */
export type LlmEndpoint = 'the Anthropic API' | 'the Messages API at ANTHROPIC_BASE_URL' | 'the keyless demo model';

/** A status's reason phrase from the HTTP table, never from the answer; 529 is Anthropic's own. */
function reasonOf(status: number): string {
  const reason = status === 529 ? 'Overloaded' : STATUS_CODES[status];
  return reason ? ` ${reason}` : '';
}

function answeredText(err: APIError, status: number, endpoint: LlmEndpoint): string {
  const type = typeof err.type === 'string' && PROVIDER_ERROR_TYPES.has(err.type) ? err.type : '';
  const requestId = typeof err.requestID === 'string' && REQUEST_ID.test(err.requestID) ? err.requestID : '';
  const facts = [type, requestId ? `(${requestId})` : ''].filter((fact) => fact !== '').join(' ');
  return `${status}${reasonOf(status)} from ${endpoint}${facts ? `: ${facts}` : ''}`;
}

/**
 * What went wrong, in the engine's words: `401 Unauthorized from the Anthropic API: authentication_error (req_…)`,
 * `431 Request Header Fields Too Large from the keyless demo model`, `connection failed (ECONNREFUSED)`.
 */
export function llmFailureText(err: unknown, endpoint: LlmEndpoint): string {
  if (err instanceof Anthropic.APIError && typeof err.status === 'number') {
    return answeredText(err, err.status, endpoint);
  }
  // The SDK's timeout before the answer's head, or bounded-fetch's TimeoutError for a body still arriving at the
  // deadline: one fact, in one word, whichever clock fired first (a loaded machine decides that).
  if (err instanceof Anthropic.APIConnectionTimeoutError || fieldOf(err, 'name') === 'TimeoutError') return 'timed out';
  if (err instanceof Anthropic.APIUserAbortError) return 'aborted';
  const code = causeCode(err);
  if (err instanceof Anthropic.APIConnectionError) return `connection failed${code ? ` (${code})` : ''}`;
  // Anything else (the body cut off by the timeout, a body that is not JSON): its class, never its message, which
  // may quote what arrived (`Unexpected token 'h', "hello" is not valid JSON`).
  const name = fieldOf(err, 'name');
  const shown = typeof name === 'string' && CLASS_NAME.test(name) ? name : 'Error';
  return code && code !== shown ? `${shown} (${code})` : shown;
}

function retryableStatus(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A failed call as a typed error: retryable unless the API refused the request itself (a 4xx but 408/409/429). */
export function llmCallFailure(req: LlmRequest, err: unknown, endpoint: LlmEndpoint): EngineError {
  const status = err instanceof Anthropic.APIError ? err.status : undefined;
  const retryable = err instanceof Anthropic.APIError ? retryableStatus(status) : true;
  // No cause: a log line writes an error's causes after its message (pino), and the SDK's error is the body.
  return new EngineError(ErrorType.LlmCallFailed, `LLM call ${req.kind} failed: ${llmFailureText(err, endpoint)}`, {
    retryable,
    details: { kind: req.kind, status: status ?? null },
  });
}
