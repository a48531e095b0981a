/**
 * DEVSERVER_RETENTION_MS reaches the real server `convengine start --temporal=cli` runs: a soak found its namespace
 * left at start-dev's day, and temporal.sqlite grew from 0.6 MB to 183 MiB over 2,098 turns, whatever the setting.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import pino from 'pino';
import { loadEnv } from '../../config/env';
import { temporalPart } from '../../cli/stack/temporal-part';
import { temporalCliBinary } from '../support/temporal';

jest.setTimeout(180_000);

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'start-retention-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

/** Starts the real server as `start` does, in `home` (one SQLite file across starts), and reads its retention. */
async function startedRetention(setting: string): Promise<{ seconds: number; warnings: string[]; ready: string }> {
  temporalCliBinary(); // Fails the test, rather than falling back to the dev server, when the CLI is missing.
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line).msg) });
  const part = await temporalPart({
    env: loadEnv({ DEVSERVER_RETENTION_MS: setting }),
    home,
    port: 0,
    mode: 'cli',
    ui: false,
    logger,
  });
  try {
    const connection = await Connection.connect({ address: part.value.address });
    try {
      const described = await connection.workflowService.describeNamespace({ namespace: 'default' });
      const seconds = Number(described.config?.workflowExecutionRetentionTtl?.seconds ?? NaN);
      return { seconds, warnings, ready: part.embedded ?? '' };
    } finally {
      await connection.close();
    }
  } finally {
    await part.stop();
  }
}

test('the real server keeps closed runs for DEVSERVER_RETENTION_MS, at least its own minimum, and says so', async () => {
  const twoHours = await startedRetention('7200000');
  expect(twoHours).toMatchObject({ seconds: 7200, warnings: [] });
  expect(twoHours.ready).toContain('retention 2 hours');

  // Ten minutes is below what the server accepts: an hour is applied, and the warning names the setting and both.
  const tenMinutes = await startedRetention('600000');
  expect(tenMinutes.seconds).toBe(3600);
  expect(tenMinutes.warnings).toEqual([expect.stringMatching(/DEVSERVER_RETENTION_MS=600000 \(10 minutes\).*1 hour/)]);
  expect(tenMinutes.ready).toContain('retention 1 hour');
});
