/**
 * `convengine start` on the real Temporal server it runs itself (`--temporal=cli`): when that server dies, the
 * process says so and exits non-zero, instead of a worker and an API retrying a dead port forever.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { newHome, processesNaming, startEmbeddedStack, type EmbeddedStack } from '../support/embedded-stack';

describe('convengine start when its real Temporal server dies', () => {
  const home = newHome();
  let stack: EmbeddedStack | null = null;

  afterAll(async () => {
    await stack?.process.kill('SIGKILL');
    for (const pid of processesNaming(home)) process.kill(pid, 'SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });

  it('exits 1 naming the Temporal server, and stops its embedded PostgreSQL', async () => {
    stack = await startEmbeddedStack(home, 'start --temporal=cli', { CONVENGINE_TEMPORAL: 'cli' });
    const servers = processesNaming(join(home, 'temporal.sqlite')).filter((pid) => pid !== stack?.process.pid);
    expect(servers.length).toBeGreaterThan(0);
    for (const pid of servers) process.kill(pid, 'SIGKILL');
    const code = await Promise.race([
      stack.process.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve('still running after 60 s'), 60_000)),
    ]);
    expect(code).toBe(1);
    expect(stack.process.tail()).toMatch(/ConvEngine cannot serve turns: the embedded Temporal server exited \(/);
    expect(processesNaming(`${home}/postgres/data`)).toEqual([]);
  }, 180_000);
});
