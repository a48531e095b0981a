/**
 * `convengine start --temporal=cli` and `convengine setup-temporal` against the real server.
 */
import { execFileSync } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { freePort } from '../../cli/temporal/server';
import { ConvengineProcess } from '../support/child-processes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { runConvengine } from '../support/run-cli';

jest.setTimeout(180_000);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => tdb?.drop());

describe('convengine start --temporal=cli', () => {
  it('runs the real server with its Web UI on --temporal-ui-port, says so, and stops it with itself', async () => {
    // A home that does not exist yet, with an external database: nothing else creates it (the embedded one would).
    const home = join(mkdtempSync(join(tmpdir(), 'ce-start-')), 'fresh', '.convengine');
    const uiPort = await freePort();
    const start = await ConvengineProcess.start(
      [
        'start',
        '--temporal=cli',
        '--port',
        '0',
        '--temporal-port',
        '0',
        '--temporal-ui-port',
        `${uiPort}`,
        '--home',
        home,
      ],
      {
        name: 'start',
        // The Web UI line follows the ready line; the 'Try:' line closes the banner.
        ready: /Try: npx convengine demo/,
        readyTimeoutMs: 150_000,
        env: { DATABASE_URL: tdb.url, TEMPORAL_ADDRESS: '', TEMPORAL_NAMESPACE: 'convengine', LOG_LEVEL: 'warn' },
      }
    );
    const banner = start.tail(4_000);
    expect(banner).toMatch(/real Temporal server 1\.29\.1 \(Temporal CLI v1\.5\.1\) at 127\.0\.0\.1:\d+/);
    expect(banner).toContain(`state in ${join(home, 'temporal.sqlite')}`);
    const ui = /Temporal Web UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
    expect(ui).toBe(`http://127.0.0.1:${uiPort}`);
    expect((await fetch(ui as string)).status).toBe(200);
    const address = /at (127\.0\.0\.1:\d+), namespace convengine, task queue convengine-turns\)/.exec(
      banner
    )?.[1] as string;
    const connection = await Connection.connect({ address });
    const listed = await connection.operatorService.listSearchAttributes({ namespace: 'convengine' });
    expect(Object.keys(listed.customAttributes ?? {}).sort()).toEqual(Object.keys(TURN_SEARCH_ATTRIBUTES).sort());
    await connection.close();
    const serverPid = serverPidOn(address);
    expect(alive(serverPid)).toBe(true);
    await start.stop(30_000);
    expect(alive(serverPid)).toBe(false);
  });
});

// `start` on TEMPORAL_ADDRESS set up its namespace best effort: a typo in TEMPORAL_NAMESPACE created a new namespace,
// 30 days' retention, on a cluster others share.
describe('convengine start on an external real Temporal', () => {
  it('refuses a namespace the server lacks, naming setup-temporal, and does not create it', async () => {
    const address = process.env['TEMPORAL_ADDRESS'] as string;
    const namespace = `typo-${process.pid}-${Date.now()}`;
    const home = mkdtempSync(join(tmpdir(), 'ce-start-'));
    // A database of its own: the one above is bound to its deployment (db/deployment.ts).
    const own = await createTestDatabase();
    const run = await runConvengine(
      ['start', '--port', '0', '--home', home],
      { DATABASE_URL: own.url, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, LOG_LEVEL: 'warn' },
      120_000
    ).finally(() => own.drop());
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 1,
      stderr: expect.stringMatching(
        new RegExp(
          `^ConvEngine failed to start: namespace ${namespace} does not exist on ${address} \\(plaintext\\): run \`convengine setup-temporal\`[^\\n]*\\n$`
        )
      ),
    });
    const connection = await Connection.connect({ address });
    try {
      await expect(connection.workflowService.describeNamespace({ namespace })).rejects.toMatchObject({ code: 5 });
    } finally {
      await connection.close();
    }
  });
});

/** The PID of the `temporal server start-dev` serving `address`. */
function serverPidOn(address: string): number {
  const port = address.split(':')[1];
  const out = execFileSync('sh', ['-c', `pgrep -f "start-dev --ip 127.0.0.1 --port ${port} " | head -n 1`], {
    encoding: 'utf8',
  });
  return Number(out.trim());
}

test('convengine setup-temporal creates a namespace with the turn search attributes, and is idempotent', async () => {
  const namespace = `setup-${Date.now()}`;
  const env = { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE: namespace };
  const first = await runConvengine(['setup-temporal', '--retention-days', '3'], env, 120_000);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain(`created namespace ${namespace} (retention 3 days)`);
  expect(first.stdout).toContain(`registered search attributes ${Object.keys(TURN_SEARCH_ATTRIBUTES).join(', ')}`);
  const second = await runConvengine(['setup-temporal'], env, 60_000);
  expect(second.code).toBe(0);
  expect(second.stdout.trim()).toBe(`namespace ${namespace} ready on ${process.env.TEMPORAL_ADDRESS} (plaintext)`);
});
