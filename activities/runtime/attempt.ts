import { AsyncLocalStorage } from 'node:async_hooks';
import { activityContext } from './activity-context';

const inProcessAttempt = new AsyncLocalStorage<number>();

/** Runs `fn` as attempt `attempt` of an activity called in-process (no Temporal context). */
export function runAsAttempt<T>(attempt: number, fn: () => Promise<T>): Promise<T> {
  return inProcessAttempt.run(attempt, fn);
}

/** The current activity attempt (1-based): Temporal's when inside a worker, else the in-process runner's. */
export function currentAttempt(): number {
  const local = inProcessAttempt.getStore();
  if (local !== undefined) return local;
  return activityContext()?.info.attempt ?? 1;
}
