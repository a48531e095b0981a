/**
 * The workflow's clock. Inside the Temporal sandbox `Date` is the time of the current workflow task,
 * recorded in history, so it replays identically; this is the one place workflow code reads it.
 */
export function workflowNow(): number {
  // eslint-disable-next-line no-restricted-syntax -- the sandboxed, replay-safe Date (see above).
  return Date.now();
}
