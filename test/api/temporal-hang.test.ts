/**
 * The API while its Temporal server accepts connections and stops answering (stopped with SIGSTOP: a TCP switch in
 * `stall` mode holds every byte, and delivers them when set back to `pass`, as SIGCONT would). Every route answers
 * 503 TEMPORAL_UNREACHABLE with retry-after within TEMPORAL_CALL_TIMEOUT_MS, never a 500 after the SDK's own 30 s;
 * a message whose start went unanswered names the turn it may still become, and the same request with its
 * Idempotency-Key then attaches to that turn rather than running a second one. Both connections the API may use:
 * its own client connection, and a worker's native one (`convengine start`), whose deadline is a CANCELLED.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowNotFoundError, type ConnectionLike } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { startApiServer, type ApiServer } from '../../api/server';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { startTcpSwitch, type TcpSwitch } from '../support/tcp-switch';
import { getSetUpTestTemporal, type TestTemporal } from '../support/temporal';

jest.setTimeout(120_000);

const CALL_TIMEOUT_MS = 1_000;
/** A caller's wait for its turn: room for its request to reach that wait before Temporal is stopped under it. */
const REPLY_TIMEOUT_MS = 3_000;
/** Well under the SDK's own 30 s, with room for a loaded machine. */
const PROMPT_MS = 10_000;

interface Answer {
  status: number;
  retryAfter: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function call(url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(PROMPT_MS),
  });
  const answer: Answer = { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  return answer;
}

const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));

async function workflowExists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

describe.each(['client', 'native'] as const)('the API while Temporal does not answer (%s connection)', (kind) => {
  let temporal: TestTemporal;
  let db: TestDatabase;
  let hang: TcpSwitch;
  let api: ApiServer;
  let native: NativeConnection | undefined;
  let direct: Connection;
  let client: Client;
  /** The conversation the first test started (its turn 1 runs, with no worker to end it), and its request's key. */
  let known: string;
  let knownKey: string;
  beforeAll(async () => {
    temporal = await getSetUpTestTemporal();
    db = await createTestDatabase();
    await seedPacks(db.db, ['faq']); // a config to answer with: on an empty one every message is refused CONFIG_EMPTY
    hang = await startTcpSwitch(portOf(temporal.address));
    direct = await Connection.connect({ address: temporal.address });
    client = new Client({ connection: direct, namespace: temporal.namespace });
    const env = loadEnv({
      DATABASE_URL: db.url,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      TEMPORAL_NAMESPACE: temporal.namespace,
      TEMPORAL_TASK_QUEUE: `hang-${kind}-${process.pid}`,
      TEMPORAL_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS),
      TURN_REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS),
      LOG_LEVEL: 'silent',
    });
    native = kind === 'native' ? await NativeConnection.connect({ address: hang.address }) : undefined;
    api = await startApiServer({
      env,
      databaseUrl: db.url,
      temporal: localTemporal(hang.address),
      host: '127.0.0.1',
      port: 0,
      // The last check said "ok": the hang comes between two checks, where only the calls' own deadline helps.
      prerequisiteCacheMs: 600_000,
      ...(native ? { workerConnection: native as ConnectionLike } : {}),
    });
  });
  afterAll(async () => {
    hang?.set('pass');
    await api?.close({ drainMs: 0 });
    await native?.close();
    await direct?.close();
    await hang?.stop();
    await db?.drop();
    await temporal?.stop();
  });

  const message = (body: object, headers: Record<string, string> = {}) =>
    call(`${api.url}/api/v1/conversation/message`, 'POST', body, headers);

  /** `work` while Temporal does not answer; the held bytes are delivered after it. */
  async function stalled<T>(work: () => Promise<T>): Promise<T> {
    hang.set('stall');
    try {
      return await work();
    } finally {
      hang.set('pass');
    }
  }

  it('a message is refused with 503 naming the turn it may become, which a retry with its key attaches to', async () => {
    const key = `hang-${randomUUID()}`;
    const [keyless, keyed] = await stalled(() =>
      Promise.all([message({ message: 'hi' }), message({ message: 'hi' }, { 'idempotency-key': key })])
    );
    for (const refused of [keyless, keyed]) {
      expect(refused).toMatchObject({
        status: 503,
        retryAfter: '5',
        body: { error: { code: 'TEMPORAL_UNREACHABLE' } },
      });
      const { conversationId } = refused.body.error.details;
      expect(refused.body.error.details).toEqual({
        conversationId,
        turnNumber: 1,
        workflowId: `turn-${conversationId}-1`,
        turnStarted: 'unknown',
      });
    }
    expect(keyless.body.error.message).toMatch(/GET \/api\/v1\/conversation\/.* before sending the message again/);
    expect(keyed.body.error.message).toMatch(/same Idempotency-Key/);
    // Whether the server runs the held start once it answers again is a race between the request and the client's
    // cancel that follows it (our dev server runs it, a real one does not): the 503 says "unknown", and names it.

    const retried = await message({ message: 'hi' }, { 'idempotency-key': key });
    expect(retried.status).toBe(202);
    expect(retried.body.turn.workflowId).toBe(keyed.body.error.details.workflowId);
    known = keyed.body.error.details.conversationId;
    knownKey = key;
    expect(await workflowExists(client, `turn-${known}-2`)).toBe(false);
  });

  it('a caller already waiting for its turn when Temporal stops answering is told so: 202 TEMPORAL_UNREACHABLE', async () => {
    const waiting = message({ message: 'hi' }, { 'idempotency-key': knownKey });
    // The request attaches to the running turn (a describe, then the update that waits) well within this.
    await new Promise((resolve) => setTimeout(resolve, REPLY_TIMEOUT_MS / 3));
    const answer = await stalled(() => waiting);
    expect(answer.status).toBe(202);
    expect(answer.body.turn).toMatchObject({ workflowId: `turn-${known}-1`, outcome: 'RUNNING' });
    expect(answer.body.running).toEqual({ reason: 'TEMPORAL_UNREACHABLE' });
  });

  it('every other route answers 503 TEMPORAL_UNREACHABLE with retry-after, never a 500', async () => {
    const conversationId = known;
    const turn = `turn-${conversationId}-1`;
    const answers = await stalled(() =>
      Promise.all([
        message({ message: 'hi', conversationId }),
        call(`${api.url}/api/v1/console/turns/${turn}`),
        call(`${api.url}/api/v1/admin/turns/held`),
        call(`${api.url}/api/v1/admin/turns/${turn}/retry`, 'POST'),
        call(`${api.url}/api/v1/conversation/${conversationId}/turns/1/approval`, 'POST', {
          decision: 'approve',
          callIndex: 1,
        }),
      ])
    );
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 503, retryAfter: '5', body: { error: { code: 'TEMPORAL_UNREACHABLE' } } });
    }
  });
});
