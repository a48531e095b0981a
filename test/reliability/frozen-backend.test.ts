/**
 * A turn whose worker's database connection freezes (an SRE drill stopped its PostgreSQL backend with SIGSTOP; here a
 * TcpSwitch in front of the worker's database stops forwarding that connection, which a lock would not model: a lock
 * wait ends at WORKER_DB_LOCK_TIMEOUT_MS). The step's statement ends at WORKER_DB_QUERY_TIMEOUT_MS, its connection is
 * destroyed, the attempt fails retryable and the retry, on a fresh connection, answers the turn. Before, the statement
 * waited for the frozen backend until the attempt's start-to-close (30 s for bookkeeping steps, 240 s for a model-led
 * run) ended it, and a worker stopped meanwhile waited for it to answer.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { BOOKKEEPING_TIMEOUT_MS } from '../../core/turn/steps';
import { startApiAndWorker, type ApiAndWorker } from '../support/api-and-worker';
import { baseConfig } from '../support/base-config';
import { insertConfigRows } from '../support/config-db';
import { ADMIN_DATABASE_URL } from '../support/database';
import { startTcpSwitch, type TcpSwitch } from '../support/tcp-switch';

jest.setTimeout(120_000);

const BOUND_MS = 2_000;

/**
 * An API and a worker, the worker's database connections through a TcpSwitch and its pool one connection (the one
 * the switch freezes is the one the next turn's step runs on), `env` on top; and a sender of `hello` turns.
 */
function frozenBackendStack(name: string, env: Record<string, string>) {
  const fixture = {} as { dbSwitch: TcpSwitch; stack: ApiAndWorker };
  beforeAll(async () => {
    fixture.dbSwitch = await startTcpSwitch(Number(new URL(ADMIN_DATABASE_URL).port));
    fixture.stack = await startApiAndWorker({
      name,
      env: { WORKER_DB_POOL_MAX: '1', ...env },
      prepare: (db) => insertConfigRows(db.db, baseConfig()),
      workerDatabaseUrl: (url) => Object.assign(new URL(url), { port: String(fixture.dbSwitch.port) }).toString(),
    });
  });
  afterAll(async () => {
    fixture.dbSwitch?.set('pass');
    await fixture.stack?.stop();
    await fixture.dbSwitch?.stop();
  });
  const send = async (conversationId: string) => {
    const res = await fetch(`${fixture.stack.api.url}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ conversationId, message: 'hello' }),
    });
    const body = (await res.json()) as { turn?: { outcome?: string } };
    return { status: res.status, outcome: body.turn?.outcome };
  };
  return { fixture, send };
}

describe("a turn whose worker's database connection freezes", () => {
  const { fixture, send } = frozenBackendStack('frozen-backend', { WORKER_DB_QUERY_TIMEOUT_MS: String(BOUND_MS) });

  it('ends the stalled statement at the bound, retries the step on a fresh connection and answers the turn', async () => {
    const { dbSwitch, stack } = fixture;
    const conversationId = randomUUID();
    expect(await send(conversationId)).toEqual({ status: 200, outcome: 'ANSWERED' });
    // The worker pool's one connection, opened for the first turn after the config listener's: the latest.
    dbSwitch.stallLatest();
    const asked = Date.now();
    expect(await send(conversationId)).toEqual({ status: 200, outcome: 'ANSWERED' });
    // Well before the attempt's start-to-close, which alone ended it before.
    expect(Date.now() - asked).toBeLessThan(BOOKKEEPING_TIMEOUT_MS - 5_000);
    const warned = stack.workerLog.lines().filter((line) => line.level === 'warn' && line.pool === 'convengine-worker');
    expect(warned.length).toBeGreaterThan(0);
    const reader = new Client({ connectionString: stack.db.url });
    await reader.connect();
    try {
      const { rows } = await reader.query<{ turns: number; replies: number }>(
        `SELECT c.turn_count AS turns,
                (SELECT count(*)::int FROM ce_audit a WHERE a.conversation_id = c.conversation_id
                    AND a.turn_number = 2 AND a.stage = 'ENGINE_RETURN') AS replies
           FROM ce_conversation c WHERE c.conversation_id = $1`,
        [conversationId]
      );
      // Committed once: the retried commit is fenced on the turn count.
      expect(rows).toEqual([{ turns: 2, replies: 1 }]);
    } finally {
      await reader.end();
    }
  });
});

describe("a worker stopped while a step's statement waits on a frozen connection", () => {
  /** Past the grace: only the bound (or the frozen backend) ends the statement. */
  const STOP_BOUND_MS = 6_000;
  const { fixture, send } = frozenBackendStack('frozen-backend-stop', {
    WORKER_DB_QUERY_TIMEOUT_MS: String(STOP_BOUND_MS),
    WORKER_SHUTDOWN_GRACE_MS: '1000',
  });

  // Before, the stop waited for the frozen statement (a second SIGINT did not help either).
  it('stops within the bound, not when the backend answers', async () => {
    const conversationId = randomUUID();
    expect(await send(conversationId)).toEqual({ status: 200, outcome: 'ANSWERED' });
    fixture.dbSwitch.stallLatest();
    // Its answer is not awaited: the stopped worker leaves the turn to the next one (the API answers 202 meanwhile).
    void send(conversationId).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const asked = Date.now();
    const stopped = await Promise.race([
      fixture.stack.worker.shutdown().then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('still stopping'), STOP_BOUND_MS + 20_000)),
    ]);
    expect(stopped).toBe('stopped');
    expect(Date.now() - asked).toBeLessThan(STOP_BOUND_MS + 10_000);
  });
});
