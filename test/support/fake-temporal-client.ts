import type { Client } from '@temporalio/client';

/**
 * A Temporal client for unit tests of what operators' calls do with Temporal's answers: every handle is `handle`,
 * and the one poller of every task queue last polled `polledMsAgo` ago. Deadlines are not enforced.
 */
export function fakeTemporalClient(handle: object, polledMsAgo: number): Client {
  const lastAccess = Date.now() - polledMsAgo;
  const describeTaskQueue = async () => ({
    pollers: [{ identity: 'worker-1', lastAccessTime: { seconds: Math.floor(lastAccess / 1000), nanos: 0 } }],
  });
  const withDeadline = <R>(_deadline: number, fn: () => Promise<R>) => fn();
  return {
    options: { namespace: 'default' },
    connection: { workflowService: { describeTaskQueue }, withDeadline },
    withDeadline,
    workflow: { getHandle: () => handle },
  } as unknown as Client;
}
