/**
 * A terminal's Ctrl-C to `convengine start --temporal=cli` (SIGINT to its whole process group) while a turn is in
 * flight: the real Temporal server, in its own process group, does not get it, so the turn finishes and its caller
 * gets the reply; then the stack stops the server itself. It once shared our group, died at once, and the caller
 * got 202 RUNNING after the drain's 10 s.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfigStore } from '../../db/config/store';
import { DEMO_MESSAGES } from '../../demo/conversations';
import { startDemoLlm } from '../../demo/recorded-llm';
import type { ScriptedLlm } from '../../scripted-llm';
import { ConvengineProcess } from '../support/child-processes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { processesGoneWithin, processesNaming } from '../support/embedded-stack';

jest.setTimeout(240_000);

/** Pids of the processes still in process group `pgid`. */
function groupMembers(pgid: number): number[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, group]) => group === pgid)
    .map(([pid]) => pid as number);
}

describe('Ctrl-C to convengine start --temporal=cli with a turn in flight', () => {
  const home = mkdtempSync(join(tmpdir(), 'ce-ctrl-c-'));
  const killedHome = mkdtempSync(join(tmpdir(), 'ce-kill-9-'));
  let tdb: TestDatabase;
  let llm: ScriptedLlm;
  let start: ConvengineProcess | null = null;

  /** `convengine start --temporal=cli` in its own process group, as a shell starts it, on the test's model. */
  const startCli = (dir: string): Promise<ConvengineProcess> =>
    ConvengineProcess.start(['start', '--temporal=cli', '--port', '0', '--temporal-port', '0', '--home', dir], {
      name: 'start --temporal=cli',
      detached: true,
      ready: /ConvEngine ready in/,
      readyTimeoutMs: 180_000,
      env: {
        DATABASE_URL: tdb.url,
        TEMPORAL_ADDRESS: '',
        ANTHROPIC_API_KEY: '',
        ANTHROPIC_BASE_URL: llm.baseUrl,
        CONVENGINE_TOOL_DEMO_URL: '',
        LOG_LEVEL: 'warn',
      },
    });

  beforeAll(async () => {
    tdb = await createTestDatabase();
    const store = createConfigStore(tdb.db);
    llm = await startDemoLlm({ config: async () => (await store.current()).rows });
  });

  afterAll(async () => {
    await start?.kill('SIGKILL');
    for (const pid of [...processesNaming(home), ...processesNaming(killedHome)]) process.kill(pid, 'SIGKILL');
    await llm?.stop();
    await tdb?.drop();
    for (const dir of [home, killedHome]) rmSync(dir, { recursive: true, force: true });
  });

  it('answers the turn 200 with its reply, stops the server after the drain, and exits 0', async () => {
    start = await startCli(home);
    const apiUrl = start.match(/API (http:\/\/127\.0\.0\.1:\d+)/) as string;
    const servers = processesNaming(join(home, 'temporal.sqlite'));
    expect(servers.length).toBeGreaterThan(0);
    // The turn's first model call answers only after 4 s: the Ctrl-C comes while it waits on it.
    llm.setFaults([{ every: 1, limit: 1, fault: { delayMs: 4_000 } }]);
    const turn = fetch(`${apiUrl}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: DEMO_MESSAGES.faq }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as unknown }));
    for (let i = 0; i < 600 && llm.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(llm.requests.length).toBeGreaterThan(0);
    start.signalGroup('SIGINT');

    const answered = await turn;
    expect(answered.status).toBe(200);
    expect(JSON.stringify(answered.body)).toContain('Yes, internal account moves are supported.');
    const code = await Promise.race([
      start.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve('still running after 60 s'), 60_000)),
    ]);
    expect(code).toBe(0);
    expect(start.tail()).not.toMatch(/cannot serve turns/);
    expect(processesNaming(home)).toEqual([]);
    expect(groupMembers(start.pid)).toEqual([]);
  });

  it('outside our process group, the server still ends when our process is killed (kill -9)', async () => {
    const killed = await startCli(killedHome);
    const servers = join(killedHome, 'temporal.sqlite');
    expect(processesNaming(servers).length).toBeGreaterThan(0);
    await killed.kill('SIGKILL');
    // The guard's pipe closes with our process: it sends the server SIGTERM.
    expect(await processesGoneWithin(servers, 30_000)).toEqual([]);
  });
});
