import type { Client } from '@temporalio/client';
import { turnWorkerIdentity } from '../../observability/turn-pollers';

/** A worker of this build, as it names itself to Temporal (worker/worker.ts). */
export const CURRENT_WORKER = turnWorkerIdentity('1@worker-1');
/**
 * A worker of a build that runs only older turn types, marked with the newest it runs: the identity a worker of this
 * build has once a newer build starts a newer type.
 */
export const OLDER_WORKER = '2@worker-2 runs=conversationTurnV2';
/**
 * A worker of a build from before the identity marker (06a5174): Temporal's default identity, `pid@host`. It runs
 * conversationTurnV3 when of a1cc19c or later, which nothing in it tells.
 */
export const UNMARKED_WORKER = '2@worker-2';

/**
 * A Temporal client for unit tests of what operators' calls do with Temporal's answers: every handle is `handle`,
 * and the one poller of every task queue, named `identity`, last polled `polledMsAgo` ago; every history's newest events
 * are of `newestEventTypes` (newest first). Deadlines and abort signals are not enforced.
 */
export function fakeTemporalClient(
  handle: object,
  polledMsAgo: number,
  identity = CURRENT_WORKER,
  newestEventTypes: number[] = []
): Client {
  const lastAccess = Date.now() - polledMsAgo;
  const describeTaskQueue = async () => ({
    pollers: [{ identity, lastAccessTime: { seconds: Math.floor(lastAccess / 1000), nanos: 0 } }],
  });
  const withDeadline = <R>(_deadline: number, fn: () => Promise<R>) => fn();
  const withAbortSignal = <R>(_signal: AbortSignal, fn: () => Promise<R>) => fn();
  const getWorkflowExecutionHistoryReverse = async () => ({
    history: { events: newestEventTypes.map((eventType) => ({ eventType })) },
  });
  return {
    options: { namespace: 'default' },
    workflowService: { getWorkflowExecutionHistoryReverse },
    connection: { workflowService: { describeTaskQueue }, withDeadline },
    withDeadline,
    withAbortSignal,
    workflow: { getHandle: () => handle },
  } as unknown as Client;
}
