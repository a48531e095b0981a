/**
 * The embedded dev server persists to its file: an in-process restart, or a server process killed
 * with SIGKILL, resumes finished histories, waiting workflows, running timers and activities.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { freePort } from '../../db/embedded/ports';
import { startDevServer } from '../../devserver';
import { bundleTestWorkflows, eventually, installQuietRuntime } from './harness';
import { testActivities, withWorker } from './own-server';
import type { accumulator, activitySequence, activityWithOptions, timerThenActivity } from './workflows';

const REPO_ROOT = path.join(__dirname, '..', '..');

let bundle: WorkflowBundleWithSourceMap;

// Jest only honours testTimeout globally, not per project.
jest.setTimeout(60_000);

beforeAll(async () => {
  installQuietRuntime();
  bundle = await bundleTestWorkflows();
});

function tempFile(label: string): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'convengine-devserver-'));
  return path.join(directory, `${label}.jsonl`);
}

describe('persistence', () => {
  test('an in-process restart keeps finished histories, waiting workflows and running timers', async () => {
    const file = tempFile('restart');
    const port = await freePort();
    let instance = await startDevServer({ port, persistPath: file });
    const ids = { done: randomUUID(), waiting: randomUUID(), timer: randomUUID() };
    await withWorker(bundle, instance.address, 'persist', async (client) => {
      expect(
        await client.workflow.execute<typeof activitySequence>('activitySequence', {
          taskQueue: 'persist',
          workflowId: ids.done,
          args: [3],
        })
      ).toBe(6);
      const waiting = await client.workflow.start<typeof accumulator>('accumulator', {
        taskQueue: 'persist',
        workflowId: ids.waiting,
        args: [5],
      });
      await waiting.signal('add', 1);
      expect(await waiting.query('total')).toBe(6);
      const timer = await client.workflow.start<typeof timerThenActivity>('timerThenActivity', {
        taskQueue: 'persist',
        workflowId: ids.timer,
        args: [1500],
      });
      await eventually(async () => {
        const history = await timer.fetchHistory();
        expect(history.events?.some((e) => e.timerStartedEventAttributes)).toBe(true);
      });
    });
    await instance.stop();
    instance = await startDevServer({ port, persistPath: file });
    try {
      await withWorker(bundle, instance.address, 'persist', async (client) => {
        expect(await client.workflow.getHandle(ids.done).result()).toBe(6);
        const waiting = client.workflow.getHandle(ids.waiting);
        await waiting.signal('add', 2);
        expect(await waiting.query('total')).toBe(8);
        await waiting.signal('finish');
        expect(await waiting.result()).toBe(8);
        expect(await client.workflow.getHandle(ids.timer).result()).toBe(1500);
        expect(
          (await client.workflow.count(`WorkflowId IN ('${ids.done}', '${ids.waiting}', '${ids.timer}')`)).count
        ).toBe(3);
      });
    } finally {
      await instance.stop();
    }
  });

  test('a server process killed with SIGKILL restarts from its file: timers, signals and a running activity survive', async () => {
    const file = tempFile('crash');
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    let child = await spawnServer(port, file);
    try {
      const connection = await NativeConnection.connect({ address });
      const clientConnection = await Connection.connect({ address });
      const client = new Client({ connection: clientConnection });
      const worker = await Worker.create({
        connection,
        taskQueue: 'crash',
        workflowBundle: bundle,
        activities: testActivities,
      });
      await worker.runUntil(async () => {
        const timer = await client.workflow.start<typeof timerThenActivity>('timerThenActivity', {
          taskQueue: 'crash',
          workflowId: randomUUID(),
          args: [2000],
        });
        const waiting = await client.workflow.start<typeof accumulator>('accumulator', {
          taskQueue: 'crash',
          workflowId: randomUUID(),
          args: [1],
        });
        await waiting.signal('add', 1);
        const running = await client.workflow.start<typeof activityWithOptions>('activityWithOptions', {
          taskQueue: 'crash',
          workflowId: randomUUID(),
          args: ['slow', [1500], { startToCloseTimeout: '3s' }],
        });
        await eventually(async () => {
          const history = await timer.fetchHistory();
          expect(history.events?.some((e) => e.timerStartedEventAttributes)).toBe(true);
          const pending = (await running.describe()).raw.pendingActivities ?? [];
          expect(pending[0]?.state).toBe(temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);
        });
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
        child = await spawnServer(port, file);
        expect(await timer.result()).toBe(2000);
        // Completed by the same worker after the restart, or retried after its start-to-close timeout.
        expect(await running.result()).toBe(JSON.stringify('slow done'));
        await waiting.signal('finish');
        expect(await waiting.result()).toBe(2);
      });
      await clientConnection.close();
      await connection.close();
    } finally {
      child.kill('SIGTERM');
    }
  });
});

/** Runs `convengine devserver` in a child process and resolves once it prints its ready line. */
function spawnServer(port: number, file: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin', 'convengine.js'), 'devserver', '--port', String(port), '--persist', file],
    { cwd: REPO_ROOT, env: { ...process.env, CONVENGINE_USE_SOURCES: '1' }, stdio: ['ignore', 'pipe', 'inherit'] }
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`ready at 127.0.0.1:${port}`)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`devserver exited with ${code} before it was ready: ${output}`)));
  });
}
