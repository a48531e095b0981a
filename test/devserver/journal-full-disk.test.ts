/**
 * The dev server on a disk that fills up: a call whose journal write fails is refused (UNAVAILABLE, which the SDK
 * retries), every call after it too and health answers NOT_SERVING, until a write succeeds; then what memory holds
 * is in the file, and a restart finds it.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../devserver';
import { failingFs } from './failing-fs';
import { RawClient } from './raw-client';

const SERVING = 1;
const NOT_SERVING = 2;

const startRequest = (workflowId: string, requestId: string) => ({
  namespace: 'default',
  workflowId,
  workflowType: { name: 'waitForever' },
  taskQueue: { name: 'no-worker' },
  requestId,
});

test('a journal write that fails fails its call and readiness until a write succeeds, and nothing is lost', async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-full-disk-'));
  const file = path.join(directory, 'state.jsonl');
  const disk = failingFs();
  const errors: unknown[] = [];
  let server: DevServer | undefined = await startDevServer({
    port: 0,
    persistPath: file,
    journalFs: disk,
    onInternalError: (error) => errors.push(error),
    onWarning: () => undefined,
  });
  const raw = new RawClient(server.address);
  const connection = await Connection.connect({ address: server.address });
  try {
    const workflowId = randomUUID();
    const requestId = randomUUID();
    disk.budget = 100; // the disk fills up in the middle of the start's write
    await expect(raw.call('StartWorkflowExecution', startRequest(workflowId, requestId))).rejects.toMatchObject({
      code: grpc.status.UNAVAILABLE,
      details: expect.stringMatching(/cannot write its journal .*ENOSPC/),
    });
    expect(server.journalFailure()).toMatch(/ENOSPC/);
    expect(await connection.healthService.check({})).toMatchObject({ status: NOT_SERVING });
    // Every call is refused while memory is ahead of the file, reads too: they would show what a restart loses.
    await expect(raw.call('DescribeNamespace', { namespace: 'default' })).rejects.toMatchObject({
      code: grpc.status.UNAVAILABLE,
    });
    expect(errors).toHaveLength(1);

    disk.budget = Infinity;
    // The retried start finds the run the refused one created, now written.
    const started = await raw.call('StartWorkflowExecution', startRequest(workflowId, requestId));
    expect(started.runId).toEqual(expect.any(String));
    expect(server.journalFailure()).toBeNull();
    expect(await connection.healthService.check({})).toMatchObject({ status: SERVING });

    await server.stop();
    server = await startDevServer({ port: 0, persistPath: file, onWarning: () => undefined });
    const again = new RawClient(server.address);
    const described = await again.call('DescribeWorkflowExecution', {
      namespace: 'default',
      execution: { workflowId },
    });
    expect(described.workflowExecutionInfo).toMatchObject({ execution: { runId: started.runId } });
    again.close();
  } finally {
    raw.close();
    await connection.close();
    await server?.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  }
});
