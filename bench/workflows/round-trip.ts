import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

/** Benchmark workflows: the bare cost of a chain of steps, each handing its payload to the next. */
export interface RoundTripActivities {
  echo(payload: unknown): Promise<unknown>;
}

const remote = proxyActivities<RoundTripActivities>({ startToCloseTimeout: '30 seconds' });
const local = proxyLocalActivities<RoundTripActivities>({ startToCloseTimeout: '30 seconds' });

/** `count` activities one after the other, each getting the previous one's result (like the turn's session). */
export async function activityChain(count: number, payload: unknown): Promise<number> {
  let current = payload;
  for (let i = 0; i < count; i++) current = await remote.echo(current);
  return count;
}

/** The same chain as local activities: run by the worker that runs the workflow, recorded as markers. */
export async function localActivityChain(count: number, payload: unknown): Promise<number> {
  let current = payload;
  for (let i = 0; i < count; i++) current = await local.echo(current);
  return count;
}
