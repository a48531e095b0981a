/**
 * `convengine start` launched by npm, stopped with a SIGTERM to npm (what a supervisor or `kill <pid>` does). npm
 * passes it to its `sh -c` child only, which died without passing it on: the stack served on as an orphan, and the
 * next start on the same --home refused. `npm start` now execs node; under `npx` the stack notices npm is gone.
 */
import { rmSync } from 'node:fs';
import { DEMO_MESSAGES } from '../../demo/conversations';
import { EMBEDDED_ENV, newHome, processAlive, processesGoneWithin, processesNaming } from '../support/embedded-stack';
import { launch as launchWith } from '../support/npm-launch';

jest.setTimeout(240_000);

/** `<command> <args>` on embedded defaults, resolved once the stack printed its ready line. */
const launch = (args: string[], command = 'npm', env: NodeJS.ProcessEnv = process.env) =>
  launchWith(args, { ready: /ConvEngine ready in/, command, env: { ...env, ...EMBEDDED_ENV } });

async function turn(output: string): Promise<number> {
  const apiUrl = /API (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  const response = await fetch(`${apiUrl}/api/v1/conversation/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: DEMO_MESSAGES.greeting }),
  });
  await response.text();
  return response.status;
}

describe('convengine start under npm, npm sent SIGTERM', () => {
  const homes: string[] = [];
  const home = (): string => {
    homes.push(newHome());
    return homes.at(-1) as string;
  };

  afterAll(() => {
    for (const dir of homes) {
      for (const pid of processesNaming(dir)) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('npm start: the signal reaches node, which drains and exits; nothing is left running', async () => {
    const dir = home();
    const run = await launch(['start', '--', '--port', '0', '--temporal-port', '0', '--home', dir]);
    expect(await turn(run.output())).toBe(200);
    run.npm.kill('SIGTERM');
    expect(await processesGoneWithin(dir, 40_000)).toEqual([]);
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('stopping: running turns finish first');
  });

  it('npx convengine start: its npm gone, the stack stops as on SIGTERM, saying why; nothing is left running', async () => {
    const dir = home();
    const run = await launch([
      'exec',
      '--no',
      '--',
      'convengine',
      'start',
      '--port',
      '0',
      '--temporal-port',
      '0',
      '--home',
      dir,
    ]);
    const node = processesNaming(dir).filter((pid) => pid !== run.npm.pid);
    expect(node.length).toBeGreaterThan(0);
    run.npm.kill('SIGTERM');
    await run.exited;
    // The drain is bounded: 10 s for the API's callers, 15 s for the worker, then the servers stop.
    expect(await processesGoneWithin(dir, 40_000)).toEqual([]);
    // Node's parent is npm's `sh -c`, not npm: the line names each by its own pid.
    expect(run.output()).toContain(`, which npm (pid ${run.npm.pid}) ran, launched this process and is gone: stopping`);
    expect(run.output()).toMatch(/\bsh \(pid \d+\), which npm/);
    expect(run.output()).toContain('stopping: running turns finish first');
  });

  it('started in the background without npm, it keeps serving once its parent is gone: it was detached on purpose', async () => {
    const dir = home();
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
    // Its parent, the shell, ends a few seconds later, once the process watches (were it launched by npm).
    const script = `node bin/convengine.js start --port 0 --temporal-port 0 --home '${dir}' & sleep 5`;
    const run = await launch(['-c', script], 'sh', env);
    expect(await run.exited).toBe(0);
    // Several polls of a parent watch later.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await turn(run.output())).toBe(200);
    const node = processesNaming(dir);
    expect(node.length).toBeGreaterThan(0);
    for (const pid of node) process.kill(pid, 'SIGTERM');
    expect(await processesGoneWithin(dir, 40_000)).toEqual([]);
  });
});
