/**
 * What an upstream's Retry-After asks (RFC 9110 §10.2.3): a number of seconds or an HTTP date. A 429 or 503 that
 * says "come back in an hour" is not helped by another attempt a moment later, nor by the activity's retries, nor
 * by the planner calling the tool again: the invoker waits what it asks when that fits the call's longest wait
 * between attempts (the row's max_backoff_ms), and otherwise ends the call for this turn (invoker.ts).
 */

/** The wait asked for, in ms (0 for a date already past); null when there is no header or it cannot be read. */
export function retryAfterMs(header: string | null, now: number): number | null {
  const text = (header ?? '').trim();
  if (text === '') return null;
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its weekday (`Sun, 06 Nov 1994 08:49:37 GMT`); a bare number too long for the form above
  // is no date either, and Date.parse would read one.
  if (!/^[A-Za-z]{3}/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** How long one call waits between its attempts at most, and so the longest Retry-After it honours. */
export function longestWaitMs(maxBackoffMs: number): number {
  return Math.max(0, maxBackoffMs);
}
