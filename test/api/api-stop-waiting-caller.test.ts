/**
 * The API stopping while a caller waits on its turn (docs/architecture.md, Stop): the caller gets 202 RUNNING
 * (reason API_STOPPING) and the turn goes on in Temporal; the wait the API had in flight on its own client
 * connection ends with the stop, and nothing throws after it, whether the Temporal server was already down (the
 * wait retrying, in its backoff) or goes away after the stop. The SDK's retry used to send its next attempt on the
 * closed connection from a timer, and the uncaught "Channel has been shut down" ended the process.
 */
import { Client, Connection } from '@temporalio/client';
import { startApiServer, type ApiServer } from '../../api/server';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { startTcpSwitch, type TcpSwitch } from '../support/tcp-switch';
import { getSetUpTestTemporal, type TestTemporal } from '../support/temporal';

jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));

type Answer = { status: number; body: { running?: unknown; turn?: { workflowId?: string } } };

describe('a caller waiting on its turn when the API stops', () => {
  let temporal: TestTemporal;
  let db: TestDatabase;
  let link: TcpSwitch;
  let direct: Connection;
  let client: Client;
  let api: ApiServer | undefined;
  let taskQueue: string;
  let tests = 0;
  const uncaught: unknown[] = [];
  const record = (err: unknown) => uncaught.push(err);
  beforeAll(async () => {
    process.on('uncaughtException', record);
    process.on('unhandledRejection', record);
    temporal = await getSetUpTestTemporal();
    db = await createTestDatabase();
    await seedPacks(db.db, ['faq']); // a config to answer with: on an empty one every message is refused CONFIG_EMPTY
    direct = await Connection.connect({ address: temporal.address });
    client = new Client({ connection: direct, namespace: temporal.namespace });
  });
  beforeEach(async () => {
    uncaught.length = 0;
    link = await startTcpSwitch(portOf(temporal.address));
    // No worker polls it: the turn runs without end, and its caller waits until the API stops.
    taskQueue = `stop-${process.pid}-${++tests}`;
    const env = loadEnv({
      DATABASE_URL: db.url,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      TEMPORAL_NAMESPACE: temporal.namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      TURN_REPLY_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'silent',
    });
    api = await startApiServer({ env, databaseUrl: db.url, temporal: localTemporal(link.address), port: 0 });
  });
  afterEach(async () => {
    await api?.close({ drainMs: 0 });
    await link?.stop();
  });
  afterAll(async () => {
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
    await direct?.close();
    await db?.drop();
    await temporal?.stop();
  });

  async function runningTurn(): Promise<string | undefined> {
    const query = `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`;
    for await (const run of client.workflow.list({ query })) return run.workflowId;
    return undefined;
  }

  /** A message, sent; resolves once its turn runs and the API waits on it for the caller, to the caller's answer. */
  async function waitingCaller(): Promise<{ answer: Promise<Answer>; workflowId: string }> {
    const answer = fetch(`${api?.url}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi' }),
    }).then(async (res): Promise<Answer> => ({ status: res.status, body: (await res.json()) as Answer['body'] }));
    let workflowId = await runningTurn();
    while (workflowId === undefined) {
      await sleep(50);
      workflowId = await runningTurn();
    }
    // The caller's wait (the turn's awaitMilestone update) is on its way to the server.
    await sleep(300);
    return { answer, workflowId };
  }

  async function stopApi(): Promise<void> {
    await api?.close({ drainMs: 0 });
    api = undefined;
  }

  it('gets 202 RUNNING; a Temporal server down since before the stop (the wait retrying) throws nothing after', async () => {
    const { answer, workflowId } = await waitingCaller();
    link.set('down');
    // The wait fails and is retried, with a backoff of 0.1 s growing 1.7 times an attempt (up to 5 s).
    await sleep(1_000);
    await stopApi();
    expect(await answer).toMatchObject({
      status: 202,
      body: { running: { reason: 'API_STOPPING' }, turn: { workflowId } },
    });
    // Past the backoff of the retry that was due when the API stopped.
    await sleep(3_000);
    expect(uncaught).toEqual([]);
    expect((await client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
  });

  it('gets 202 RUNNING; a Temporal server that goes away after the stop throws nothing', async () => {
    const { answer, workflowId } = await waitingCaller();
    await stopApi();
    expect(await answer).toMatchObject({
      status: 202,
      body: { running: { reason: 'API_STOPPING' }, turn: { workflowId } },
    });
    link.set('down');
    await sleep(2_000);
    expect(uncaught).toEqual([]);
    expect((await client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
  });
});
