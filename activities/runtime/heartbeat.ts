import { activityContext } from './activity-context';

/** How often a running activity tells the server it is alive (the timeout is in workflows/activity-options.ts). */
export const HEARTBEAT_INTERVAL_MS = 2_000;

/**
 * Heartbeats while `fn` runs inside a Temporal activity. Without it the server learns that a
 * worker died only when the attempt's start-to-close timeout passes — two minutes for an LLM
 * step; with it, within the heartbeat timeout. Quick steps finish before the first beat.
 */
export async function whileHeartbeating<T>(fn: () => Promise<T>): Promise<T> {
  // Null in process (tests, benchmark baseline): there is no server to tell.
  const context = activityContext();
  // Local activities (bookkeeping steps) have no server-side heartbeat; their attempts are short.
  if (!context || context.info.isLocal) return fn();
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_INTERVAL_MS);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
