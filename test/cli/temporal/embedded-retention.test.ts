/**
 * DEVSERVER_RETENTION_MS reaches `convengine start`'s embedded dev server: a soak test showed memory and the
 * journal growing with every turn kept for the default day, and nothing could lower it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import pino from 'pino';
import { loadEnv } from '../../../config/env';
import { temporalPart } from '../../../cli/stack/temporal-part';

async function reportedRetentionSeconds(env: Record<string, string>): Promise<number> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-retention-'));
  const part = await temporalPart({
    env: loadEnv(env),
    home,
    port: 0,
    mode: 'embedded',
    ui: false,
    logger: pino({ level: 'silent' }),
  });
  const connection = await Connection.connect({ address: part.value.address });
  try {
    const described = await connection.workflowService.describeNamespace({ namespace: 'default' });
    return Number(described.config?.workflowExecutionRetentionTtl?.seconds ?? NaN);
  } finally {
    await connection.close();
    await part.stop();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

test('the embedded dev server keeps closed runs for DEVSERVER_RETENTION_MS, a day by default', async () => {
  expect(await reportedRetentionSeconds({ DEVSERVER_RETENTION_MS: '120000' })).toBe(120);
  expect(await reportedRetentionSeconds({})).toBe(24 * 60 * 60);
});
