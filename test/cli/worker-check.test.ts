/** `convengine worker --check` reports its round trip as a log record: the worker's stdout stays JSON lines. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../cli/temporal/server';
import { workerEnvironment } from '../support/worker-environment';

const BIN = join(__dirname, '..', '..', 'bin', 'convengine.js');

describe('convengine worker --check', () => {
  const environment = workerEnvironment();

  it('logs the round-trip finding as one JSON line among the others, then polls', async () => {
    const env = {
      ...process.env,
      CONVENGINE_USE_SOURCES: '1',
      ...environment(),
      WORKER_METRICS_PORT: String(await freePort()),
    };
    const worker = spawn(process.execPath, [BIN, 'worker', '--check'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => worker.on('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the worker did not poll: ${stdout}`)), 120_000);
        worker.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('worker polling')) resolve(clearTimeout(timer));
        });
      });
      worker.kill('SIGTERM');
      expect(await exited).toBe(0);
      const lines = stdout.trim().split('\n');
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.find((r) => r['check'] === 'round-trip')).toMatchObject({
        result: expect.stringMatching(/^(ok|warn)$/),
        msPerActivity: expect.any(Number),
        msg: expect.stringContaining('ms per activity round trip'),
      });
    } finally {
      worker.kill('SIGKILL');
    }
  }, 150_000);
});
