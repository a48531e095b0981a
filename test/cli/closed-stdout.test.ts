/**
 * A convengine command whose stdout reader has gone (`| head -1`): a one-shot command ends quietly with 141, as
 * SIGPIPE ends other programs in a pipeline; a server keeps serving. Node's EPIPE was an unhandled error: a stack
 * trace and exit 1, and `start` died while it started its stack.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../cli/temporal/server';
import { createTestDatabase, type TestDatabase } from '../support/database';

const BIN = join(__dirname, '..', '..', 'bin', 'convengine.js');
const NOWHERE = { TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'postgres://convengine@127.0.0.1:1/none' };

interface Run {
  code: Promise<number | null>;
  stderr: () => string;
  kill: (signal: NodeJS.Signals) => boolean;
}

/** The CLI with its stdout's reader gone before it writes anything; `input` is its stdin. */
function withStdoutClosed(args: string[], env: Record<string, string>, input = ''): Run {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, CONVENGINE_USE_SOURCES: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  child.stdin.on('error', () => undefined).end(input);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
  return { code, stderr: () => stderr, kill: (signal) => child.kill(signal) };
}

describe('a one-shot convengine command whose stdout reader has gone', () => {
  it.each([
    ['--help', ['--help'], ''],
    ['sql-check', ['sql-check'], 'select 1;\n'.repeat(20_000)],
  ])(
    '%s ends quietly with exit code 141',
    async (_name, args, input) => {
      const run = withStdoutClosed(args, NOWHERE, input);
      expect(await run.code).toBe(141);
      expect(run.stderr()).toBe('');
    },
    60_000
  );
});

describe('convengine start whose stdout reader has gone', () => {
  let db: TestDatabase;
  beforeAll(async () => void (db = await createTestDatabase()));
  afterAll(() => db?.drop());

  it('keeps serving, and stops cleanly (exit 0) on SIGTERM', async () => {
    const [port, temporalPort] = [await freePort(), await freePort()];
    const home = join(__dirname, '..', '..', 'node_modules', '.cache', `closed-stdout-${process.pid}`);
    const args = ['start', '--temporal=embedded', '--port', String(port), '--temporal-port', String(temporalPort)];
    const run = withStdoutClosed([...args, '--home', home, '--packs', 'none'], { DATABASE_URL: db.url });
    try {
      let healthy = false;
      for (let i = 0; i < 240 && !healthy; i++) {
        healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false
        );
        if (!healthy) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect({ healthy, stderr: run.stderr() }).toEqual({ healthy: true, stderr: '' });
      run.kill('SIGTERM');
      expect(await run.code).toBe(0);
    } finally {
      run.kill('SIGKILL');
      rmSync(home, { recursive: true, force: true });
    }
  }, 180_000);
});
