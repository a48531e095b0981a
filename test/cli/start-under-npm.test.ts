/**
 * `convengine start` launched by npm, stopped with a SIGTERM to npm (what a supervisor or `kill <pid>` does). npm
 * passes it to its `sh -c` child only, which died without passing it on: the stack served on as an orphan, and the
 * next start on the same --home refused. `npm start` now execs node; under `npx` the stack notices npm is gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_MESSAGES } from '../../demo/conversations';
import { EMBEDDED_ENV, newHome, processAlive, processesGoneWithin, processesNaming } from '../support/embedded-stack';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');

interface NpmLaunch {
  /** The launcher: npm, or a shell. */
  npm: ChildProcess;
  output: () => string;
  /** The launcher's own exit. */
  exited: Promise<number | null>;
}

/** `<command> <args>` in the checkout, its output collected, resolved once the stack printed its ready line. */
async function launch(args: string[], command = 'npm', env: NodeJS.ProcessEnv = process.env): Promise<NpmLaunch> {
  const npm = spawn(command, args, {
    cwd: ROOT,
    env: { ...env, CONVENGINE_USE_SOURCES: '1', ...EMBEDDED_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  npm.stdout.on('data', collect);
  npm.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => npm.once('exit', resolve));
  for (let i = 0; i < 1_800 && !/ConvEngine ready in/.test(output); i++) {
    // A launcher that started it in the background exits 0 at once; one that failed, otherwise.
    if (npm.exitCode !== null && npm.exitCode !== 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!/ConvEngine ready in/.test(output)) throw new Error(`${command} ${args.join(' ')} did not come up:\n${output}`);
  return { npm, output: () => output, exited };
}

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
    expect(run.output()).toMatch(/npm \(pid \d+\), which launched this process, is gone: stopping/);
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
