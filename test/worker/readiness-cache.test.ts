/**
 * The worker's /readyz serves one probe of its dependencies for READINESS_CACHE_MS, as the API's does
 * (docs/operations.md, "Health"): a burst of probes asks the database and Temporal once.
 */
import { READINESS_CACHE_MS } from '../../observability/dependency-checks';
import type { PrerequisiteStatus } from '../../observability/prerequisite-problems';
import { workerProbeHandlers } from '../../worker/readiness';

type Handlers = ReturnType<typeof workerProbeHandlers>;
type Args = Parameters<typeof workerProbeHandlers>;

/** The worker's probe handlers over dependencies that answer at once, each call counted. */
function handlers() {
  const asked = { database: 0, temporal: 0 };
  const ready: PrerequisiteStatus = { database: 'ok', temporal: 'ok', problem: null, warnings: {} };
  const resources = {
    wired: {
      deps: {
        db: {
          execute: async () => {
            asked.database += 1;
            return { rows: [] };
          },
        },
      },
    },
    connection: {
      withDeadline: <T>(_deadline: number, call: () => Promise<T>) => call(),
      workflowService: {
        getSystemInfo: async () => {
          asked.temporal += 1;
          return {};
        },
      },
    },
    prerequisites: { status: async () => ready },
  } as unknown as Args[1];
  const run = { env: {} } as unknown as Args[0];
  const state = { worker: { getState: () => 'RUNNING' }, starting: 'starting' } as unknown as Args[2];
  return { asked, probe: workerProbeHandlers(run, resources, state, {} as Args[3]) };
}

const checks = async (probe: Handlers) => (await probe.readiness()).checks;

describe("the worker's readiness cache", () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2030-01-01T12:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('answers fifty probes within the second from one probe of the database and of Temporal', async () => {
    const { asked, probe } = handlers();
    for (let i = 0; i < 50; i++) expect(await checks(probe)).toMatchObject({ database: 'ok', worker: 'ok' });
    expect(asked).toEqual({ database: 1, temporal: 1 });
  });

  it('probes again once the second has passed', async () => {
    const { asked, probe } = handlers();
    await checks(probe);
    jest.advanceTimersByTime(READINESS_CACHE_MS);
    await checks(probe);
    expect(asked).toEqual({ database: 2, temporal: 2 });
  });
});
