import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { operatorFailedText } from '../../core/mcp/hold';
import { publicFailureType } from '../replies';

/** What the console may show of a failure. */
export interface PublicFailure {
  type: string | null;
  message: string;
  nonRetryable: boolean;
}

export const INTERNAL_FAILURE_MESSAGE =
  'The step failed on an internal error; its message is in the turn history (`convengine history <workflowId>`).';

/**
 * Engine failures (typed codes such as TOOL_HTTP_ERROR) are written for the reader and shown as
 * they are. Anything else is an unexpected error (a driver's, a library's) whose message may carry
 * SQL or internals: the API shows only that something internal failed, as for STEP_ERROR rows.
 */
export function publicFailure(failure: PublicFailure): PublicFailure {
  if (failure.type !== null && publicFailureType(failure.type) === failure.type) return failure;
  return { type: 'INTERNAL', message: INTERNAL_FAILURE_MESSAGE, nonRetryable: failure.nonRetryable };
}

type Failure = temporal.api.failure.v1.IFailure;

/**
 * A failure's message and stack trace. A failure converter with `encodeCommonAttributes` moves both into
 * `encodedAttributes`, leaving "Encoded failure" in `message`, and so does the turn worker with PAYLOAD_ENCRYPTION_KEYS
 * set, leaving an outline there (activities/runtime/sealed-failure.ts): once that payload is decoded (the SDK decodes a
 * failure it hands over, decodePayloadsIn a history), they are read from it, as the SDK reads them. Attributes of
 * another shape, or not decoded (still ciphertext, a claim reference), leave the fields as stored.
 */
export function commonAttributesOf(failure: Failure): { message: string; stackTrace: string } {
  const stored = { message: failure.message ?? '', stackTrace: failure.stackTrace ?? '' };
  if (!failure.encodedAttributes) return stored;
  let attrs: unknown;
  try {
    attrs = defaultPayloadConverter.fromPayload(failure.encodedAttributes);
  } catch {
    return stored;
  }
  if (typeof attrs !== 'object' || attrs === null) return stored;
  const { message, stack_trace } = attrs as { message?: unknown; stack_trace?: unknown };
  return {
    message: typeof message === 'string' ? message : stored.message,
    stackTrace: typeof stack_trace === 'string' ? stack_trace : stored.stackTrace,
  };
}

/** A failure's details as values, once decoded; [] for details still ciphertext (read with the wrong keys) or none. */
function detailsOf(failure: Failure): unknown[] {
  const payloads = failure.applicationFailureInfo?.details?.payloads ?? [];
  try {
    return payloads.map((payload) => defaultPayloadConverter.fromPayload(payload));
  } catch {
    return [];
  }
}

/** The turn's own wrapper (workflows/conversation-turn.ts) and Temporal's around an activity's failure. */
const isWrapper = (f: Failure) => !!f.activityFailureInfo || f.applicationFailureInfo?.type === 'TURN_FAILED';

/**
 * The failure a turn or step failed on, in full (operators read it: `convengine history`): below the
 * turn's TURN_FAILED and the ActivityFailure, the step's own failure — not what that wraps (a
 * driver's error, which Temporal carries as its cause). A timeout is TIMEOUT, whatever it wraps.
 */
export function failureOf(failure: Failure): PublicFailure {
  let own = failure;
  while (isWrapper(own) && own.cause) own = own.cause;
  const { message } = commonAttributesOf(own);
  if (own.timeoutFailureInfo) return { type: 'TIMEOUT', message: message || 'timed out', nonRetryable: false };
  const info = own.applicationFailureInfo;
  const shown = operatorFailedText(info?.type, message, detailsOf(own));
  return { type: info?.type ?? null, message: shown, nonRetryable: !!info?.nonRetryable };
}

/**
 * That failure as the API shows it wherever it appears — the POST reply, the console's story and
 * pending activities, a step of the history — so a turn that timed out reads TIMEOUT in all of them.
 */
export function publicFailureOf(failure: Failure): PublicFailure {
  return publicFailure(failureOf(failure));
}
