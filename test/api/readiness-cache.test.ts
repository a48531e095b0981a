/**
 * The API's /readyz serves one probe of its dependencies for READINESS_CACHE_MS (docs/operations.md: "the probes of
 * the next second"): a burst of probes asks the database and Temporal once, and an answer, ok or not, is not served
 * longer than that, even when the wall clock is set back.
 */
import type { ConnectionLike } from '@temporalio/client';
import { apiReadiness, READINESS_CACHE_MS, type ReadinessDependencies } from '../../api/readiness';
import type { PrerequisiteStatus } from '../../observability/prerequisite-problems';
import { turnWorkerIdentity } from '../../observability/turn-pollers';
import { TURN_WORKFLOW_TYPE } from '../../workflows/turn-type';
import { TURN_PATCHES } from '../../workflows/turn-versions';

/**
 * Dependencies that answer at once; the database's answers are counted, and it can be taken down. The task queue's one
 * poller, `worker`, polled long ago, or just now when `polling` names it.
 */
function dependencies(workerDatabase?: () => Promise<string>, polling?: string) {
  const poller = polling
    ? { identity: polling, lastAccessTime: { seconds: Math.floor(Date.now() / 1000), nanos: 0 } }
    : { lastAccessTime: null, identity: 'worker' };
  const database = { up: true, probes: 0 };
  const ready: PrerequisiteStatus = { database: 'ok', temporal: 'ok', problem: null, warnings: {} };
  const connection = {
    withDeadline: <T>(_deadline: number, call: () => Promise<T>) => call(),
    workflowService: {
      describeNamespace: async () => ({}),
      describeTaskQueue: async () => ({ pollers: [poller] }),
    },
  } as unknown as Pick<ConnectionLike, 'workflowService' | 'withDeadline'>;
  const deps: ReadinessDependencies = {
    db: {
      execute: (async () => {
        database.probes += 1;
        if (!database.up)
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        return { rows: [] };
      }) as unknown as ReadinessDependencies['db']['execute'],
    },
    connection,
    env: { TEMPORAL_NAMESPACE: 'default', TEMPORAL_TASK_QUEUE: 'turns' },
    prerequisites: { status: async () => ready, deploymentMismatch: async () => null },
    ...(workerDatabase ? { workerDatabase } : {}),
  };
  return { database, readiness: apiReadiness(deps, READINESS_CACHE_MS) };
}

const databaseCheck = async (readiness: ReturnType<typeof dependencies>['readiness']) =>
  (await readiness.check()).checks['database'];

describe('the API readiness cache', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2030-01-01T12:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('answers a second call within the second from the first probe, without probing again', async () => {
    const { database, readiness } = dependencies();
    expect(await databaseCheck(readiness)).toBe('ok');
    jest.advanceTimersByTime(READINESS_CACHE_MS - 1);
    expect(await databaseCheck(readiness)).toBe('ok');
    expect(database.probes).toBe(1);
  });

  it('probes again once the second has passed', async () => {
    const { database, readiness } = dependencies();
    await readiness.check();
    jest.advanceTimersByTime(READINESS_CACHE_MS);
    await readiness.check();
    expect(database.probes).toBe(2);
  });

  it('serves an ok answer no longer than the second after the database went down', async () => {
    const { database, readiness } = dependencies();
    expect(await databaseCheck(readiness)).toBe('ok');
    database.up = false;
    jest.advanceTimersByTime(READINESS_CACHE_MS / 2);
    expect(await databaseCheck(readiness)).toBe('ok');
    jest.advanceTimersByTime(READINESS_CACHE_MS / 2);
    expect(await databaseCheck(readiness)).toBe('unreachable');
  });

  it('serves a failed probe for the second too, then probes again and says ok', async () => {
    const { database, readiness } = dependencies();
    database.up = false;
    expect(await databaseCheck(readiness)).toBe('unreachable');
    database.up = true;
    expect(await databaseCheck(readiness)).toBe('unreachable');
    jest.advanceTimersByTime(READINESS_CACHE_MS);
    expect(await databaseCheck(readiness)).toBe('ok');
    expect(database.probes).toBe(2);
  });

  it('keeps to the second when the wall clock is set back (NTP, a VM resumed)', async () => {
    const { database, readiness } = dependencies();
    expect(await databaseCheck(readiness)).toBe('ok');
    database.up = false;
    jest.setSystemTime(Date.now() - 60 * 60 * 1000);
    jest.advanceTimersByTime(READINESS_CACHE_MS);
    expect(await databaseCheck(readiness)).toBe('unreachable');
  });
});

describe("convengine start's readiness", () => {
  it("is not ready while the worker's own engine pool cannot connect, though the API's can", async () => {
    const { readiness } = dependencies(async () => 'unreachable');
    const { checks } = await readiness.check();
    expect(checks).toMatchObject({ database: 'ok', workerDatabase: 'unreachable' });
  });
});

describe("the API readiness's worker check", () => {
  it('is ready with a warning while the only worker polling knows fewer patches than this build records', async () => {
    const known = TURN_PATCHES.length - 1;
    const { readiness } = dependencies(undefined, `4@old-host runs=${TURN_WORKFLOW_TYPE} patches=${known}`);
    const { checks, warnings } = await readiness.check();
    expect(checks).toMatchObject({ worker: 'ok' });
    expect(warnings?.['worker']).toMatch(
      new RegExp(`^no worker polling knows all ${TURN_PATCHES.length} turn workflow patches this build records`)
    );
  });

  it('is ready without a warning while a worker of this build polls', async () => {
    const { readiness } = dependencies(undefined, turnWorkerIdentity('4@new-host'));
    const { checks, warnings } = await readiness.check();
    expect(checks).toMatchObject({ worker: 'ok' });
    expect(warnings).not.toHaveProperty('worker');
  });
});
