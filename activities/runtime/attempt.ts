import { AsyncLocalStorage } from 'node:async_hooks';
import { activityContext } from './activity-context';

interface InProcessAttempt {
  attempt: number;
  /** The attempts the in-process runner makes of this call for retryable failures (its retry policy). */
  maxAttempts: number;
}

const inProcessAttempt = new AsyncLocalStorage<InProcessAttempt>();

/** Runs `fn` as attempt `attempt` of `maxAttempts` of an activity called in-process (no Temporal context). */
export function runAsAttempt<T>(attempt: number, fn: () => Promise<T>, maxAttempts = Number.POSITIVE_INFINITY) {
  return inProcessAttempt.run({ attempt, maxAttempts }, fn);
}

/** The current activity attempt (1-based): Temporal's when inside a worker, else the in-process runner's. */
export function currentAttempt(): number {
  const local = inProcessAttempt.getStore();
  if (local !== undefined) return local.attempt;
  return activityContext()?.info.attempt ?? 1;
}

/**
 * Whether no attempt follows this one even when it fails retryably: its retry policy's attempts are used up.
 * An unlimited policy (maximumAttempts 0 or unset), or a server that sends no policy, never says so.
 */
export function isLastAttempt(): boolean {
  const local = inProcessAttempt.getStore();
  if (local !== undefined) return local.attempt >= local.maxAttempts;
  const info = activityContext()?.info;
  const max = info?.retryPolicy?.maximumAttempts ?? 0;
  return info !== undefined && max > 0 && info.attempt >= max;
}
