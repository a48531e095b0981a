/**
 * `convengine start` owns its embedded servers: when one dies under it, the stack cannot serve a turn, so the
 * process says which part ended and exits non-zero (a supervisor then restarts it), instead of serving 5xx
 * and retrying a dead server's port forever.
 */
import { rmSync } from 'node:fs';
import {
  processAlive,
  processesNaming,
  newHome,
  startEmbeddedStack,
  type EmbeddedStack,
} from '../support/embedded-stack';

describe('convengine start when an embedded server dies', () => {
  const home = newHome();
  let stack: EmbeddedStack | null = null;

  afterAll(async () => {
    await stack?.process.kill('SIGKILL');
    for (const pid of processesNaming(`${home}/postgres/data`)) process.kill(pid, 'SIGQUIT');
    rmSync(home, { recursive: true, force: true });
  });

  it('exits 1 naming the embedded PostgreSQL and its log when the database server is killed', async () => {
    stack = await startEmbeddedStack(home);
    process.kill(stack.serverPid, 'SIGKILL');
    const code = await Promise.race([
      stack.process.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve('still running after 60 s'), 60_000)),
    ]);
    expect(code).toBe(1);
    expect(stack.process.tail()).toMatch(
      /ConvEngine cannot serve turns: the embedded PostgreSQL server exited with SIGKILL \(its log: \S+postgres\S*\)\. Stopping the rest of the stack\./
    );
    expect(processAlive(stack.serverPid)).toBe(false);
    // Its backends end with their postmaster: nothing of the stack is left running.
    expect(processesNaming(`${home}/postgres/data`)).toEqual([]);
  }, 180_000);
});
