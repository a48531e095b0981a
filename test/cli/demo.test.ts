/** `convengine demo` refuses a bad command line instead of running the demo with it. */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConvengineProcess } from '../support/child-processes';
import { EMBEDDED_ENV } from '../support/embedded-stack';
import { runConvengine } from '../support/run-cli';

const NOWHERE = { TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'postgres://convengine@127.0.0.1:1/none' };

describe('convengine demo usage', () => {
  it.each([
    [['--bogus'], 'demo: unexpected argument(s): --bogus'],
    [['--url'], '--url needs a value'],
    [['--json=yes'], '--json takes no value'],
  ])('demo %j exits 2 with "%s"', async (args, message) => {
    const run = await runConvengine(['demo', ...args], NOWHERE, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
  });

  it('says in --help which environment it reads: the port and the API token', async () => {
    const run = await runConvengine(['demo', '--help'], NOWHERE, 30_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: convengine demo/);
    expect(run.stdout).toContain('$PORT');
    expect(run.stdout).toContain('Sends API_TOKEN, when it is set, as the bearer token');
    // Progress comes on the audit stream, which only the operator's token reaches when it is set.
    expect(run.stdout).toContain('(OPERATOR_API_TOKEN when that is set');
    expect(run.stdout).toContain('through the HTTP API (PORT, API_TOKEN)');
  });
});

describe('convengine demo --url', () => {
  it('refuses a --url that is not an http(s) URL (exit 2) instead of starting a private stack', async () => {
    const run = await runConvengine(['demo', '--url', 'notaurl'], NOWHERE, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe('--url expects an http(s) URL (got "notaurl")');
    expect(run.stdout).not.toContain('embedded stack');
  });

  it('fails (exit 1) naming a --url where no API answers, instead of starting a private stack', async () => {
    const run = await runConvengine(['demo', '--url', 'http://127.0.0.1:1/'], NOWHERE, 30_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no ConvEngine API answers at http://127.0.0.1:1');
    expect(run.stdout).not.toContain('embedded stack');
  });
});

/** Every process whose command line names a directory under `dir` (an embedded postmaster and its backends). */
function processesUnder(dir: string): string[] {
  const ps = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return ps.split('\n').filter((line) => line.includes(dir) && !line.includes(' ps '));
}

describe('convengine demo on its private embedded stack', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'on %s stops the stack: no PostgreSQL of its home survives and the home is removed',
    async (signal) => {
      // Its temp home is made under TMPDIR: a directory of this test's own, to look into afterwards.
      const tmp = mkdtempSync(join(tmpdir(), 'ce-demo-signal-'));
      // Under root the embedded PostgreSQL runs as "postgres", which must be able to enter it.
      chmodSync(tmp, 0o755);
      try {
        const demo = await ConvengineProcess.start(['demo'], {
          name: 'demo',
          // PORT=1: no API answers there, so the demo starts its private stack.
          env: { ...EMBEDDED_ENV, PORT: '1', TMPDIR: tmp },
          ready: /embedded PostgreSQL/,
          readyTimeoutMs: 120_000,
        });
        expect(processesUnder(tmp).length).toBeGreaterThan(0);
        await demo.kill(signal);
        expect(await demo.exited).toBe(signal === 'SIGINT' ? 130 : 143);
        expect(processesUnder(tmp)).toEqual([]);
        expect(readdirSync(tmp).filter((name) => name.startsWith('convengine-demo-'))).toEqual([]);
      } finally {
        for (const line of processesUnder(tmp)) process.kill(Number(line.trim().split(' ')[0]), 'SIGQUIT');
        rmSync(tmp, { recursive: true, force: true });
      }
    },
    180_000
  );
});
