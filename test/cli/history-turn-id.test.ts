/** `convengine history` names a turn as every API route does: its conversation's UUID in either case. */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { getTestTemporal, type TestTemporal } from '../support/temporal';
import { runConvengine } from '../support/run-cli';

jest.setTimeout(120_000);

describe('convengine history of a turn named with an upper-case UUID', () => {
  let temporal: TestTemporal;
  let connection: Connection;
  const conversationId = randomUUID();
  const workflowId = `turn-${conversationId}-3`;
  const taskQueue = `nobody-${conversationId}`;
  const queue = ['--task-queue', taskQueue];

  beforeAll(async () => {
    temporal = await getTestTemporal();
    connection = await Connection.connect({ address: temporal.address });
    // No worker takes it: its first events are all the history needs.
    const client = new Client({ connection, namespace: temporal.namespace });
    await client.workflow.start('turnWorkflow', { taskQueue, workflowId, args: [] });
  });

  afterAll(async () => {
    await new Client({ connection, namespace: temporal.namespace }).workflow
      .getHandle(workflowId)
      .terminate()
      .catch(() => undefined);
    await connection?.close();
    await temporal?.stop();
  });

  it('reads the turn the lower-case id names', async () => {
    const sent = `turn-${conversationId.toUpperCase()}-3`;
    const args = ['history', sent, '--address', temporal.address, '--namespace', temporal.namespace, ...queue];
    const run = await runConvengine(args, {}, 60_000);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout.split('\n')[0]).toMatch(new RegExp(`^${workflowId} — started `));
  });
});
