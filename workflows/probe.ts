import { proxyActivities } from '@temporalio/workflow';

/**
 * `convengine doctor`'s probe: a chain of empty activities, so the time per link is the server's
 * orchestration cost alone (schedule → task to a worker → completion → next workflow task). It runs
 * on a task queue of its own, never on the turn worker's.
 */
export interface ProbeActivities {
  probeNoop(): Promise<void>;
}

const { probeNoop } = proxyActivities<ProbeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

export async function activityRoundTripProbe(count: number): Promise<number> {
  for (let i = 0; i < count; i++) await probeNoop();
  return count;
}
