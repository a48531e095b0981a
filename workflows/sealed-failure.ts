import { defaultPayloadConverter, TemporalFailure } from '@temporalio/common';
import { SEALED_FAILURE_OUTLINE } from '../core/errors';

/**
 * The outline a failure sealed by the worker (activities/runtime/sealed-failure.ts, PAYLOAD_ENCRYPTION_KEYS set) says
 * in history instead of its text, or null for a failure that is not sealed. The SDK hands the workflow the failure
 * decrypted, its message the text again; the outline stays in its encoded attributes.
 */
export function sealedOutline(err: unknown): string | null {
  const encoded = err instanceof TemporalFailure ? err.failure?.encodedAttributes : undefined;
  if (!encoded) return null;
  let attributes: unknown;
  try {
    attributes = defaultPayloadConverter.fromPayload(encoded);
  } catch {
    return null;
  }
  const outline =
    typeof attributes === 'object' && attributes !== null ? Reflect.get(attributes, SEALED_FAILURE_OUTLINE) : undefined;
  return typeof outline === 'string' ? outline : null;
}

/**
 * The failure as the turn's own failure may carry it back into history (its cause): each sealed link of the chain
 * with its outline for a message, as the worker stored it, since the SDK sends a failure's decrypted proto as it
 * received it. Its text stays in its encoded attributes, which the worker encrypts again. A failure not sealed is
 * unchanged.
 */
export function resealed<E>(err: E): E {
  for (let link: unknown = err; link instanceof TemporalFailure; link = link.cause) {
    const outline = sealedOutline(link);
    if (outline !== null && link.failure) link.failure = { ...link.failure, message: outline, stackTrace: '' };
  }
  return err;
}
