/**
 * `npx convengine worker` and `npx convengine api`, stopped with a SIGTERM to npm (what a supervisor or `kill <pid>`
 * does). npm passes it to its `sh -c` child only, which dies without passing it on: the node process served on,
 * reparented, and a restart failed with EADDRINUSE. Like `start`, each now notices that npm is gone and stops.
 */
import { startDevServer, type DevServer } from '../../devserver';
import { processAlive } from '../../db/embedded/leftovers';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { descendantsOf, launch } from '../support/npm-launch';

jest.setTimeout(240_000);

async function goneWithin(pids: number[], ms: number): Promise<number[]> {
  const until = performance.now() + ms;
  while (pids.some(processAlive) && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return pids.filter(processAlive);
}

describe.each([
  ['api', /API listening on (http:\/\/[\d.:]+)/],
  ['worker', /"probe":"(http:\/\/[\d.:]+)"/],
])('npx convengine %s, npm sent SIGTERM', (command, listening) => {
  let temporal: DevServer;
  let db: TestDatabase;
  const started: number[] = [];

  beforeAll(async () => {
    temporal = await startDevServer({ port: 0, searchAttributes: { ...TURN_SEARCH_ATTRIBUTES } });
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const pid of started) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    await db?.drop();
    await temporal?.stop();
  });

  it('stops as on SIGTERM once its npm is gone, saying why; its port is free again', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace,
      TEMPORAL_TASK_QUEUE: `under-npm-${process.pid}`,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      PORT: '0',
      WORKER_METRICS_PORT: '0',
      LOG_FORMAT: 'json',
    };
    const run = await launch(['exec', '--no', '--', 'convengine', command], { ready: listening, env });
    const url = listening.exec(run.output())?.[1];
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const below = descendantsOf(run.npm.pid as number);
    started.push(...below);
    expect(below.length).toBeGreaterThan(0);

    run.npm.kill('SIGTERM');
    await run.exited;
    expect(await goneWithin(below, 60_000)).toEqual([]);
    // Node's parent is npm's `sh -c`, not npm: the line names each by its own pid.
    expect(run.output()).toContain(`, which npm (pid ${run.npm.pid}) ran, launched this process and is gone: stopping`);
    expect(run.output()).toMatch(/\bsh \(pid \d+\), which npm/);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
