/**
 * `convengine worker` stopped with SIGTERM while the turn's commit waits on a row lock someone else holds: after the
 * grace the commit's statement is cancelled on the server and rolled back, the worker exits 0 within its grace, and
 * nothing of the turn is written; once the lock is gone, another worker commits the turn, once. Before, the statement
 * ignored the activity's cancellation: the worker exited 1 ten seconds after the grace ("stopped by force"), and the
 * statement, still waiting in the server, could commit after the worker was gone.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { WORKER_SHUTDOWN_GRACE_DEFAULT_MS } from '../../config/env';
import { DEMO_MESSAGES } from '../../demo/conversations';
import { SHUTDOWN_FORCE_MARGIN_MS } from '../../worker/worker';
import { ConvengineProcess } from '../support/child-processes';
import { startWorkerStopStack, type WorkerStopStack } from '../support/worker-stop-stack';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the cancel, the worker's own stop and a loaded machine may add to the grace. */
const MARGIN_MS = 3_000;

describe('a worker stopped with SIGTERM while its commit waits on a row lock', () => {
  let stack: WorkerStopStack;
  let holder: Client;

  beforeAll(async () => {
    stack = await startWorkerStopStack('commit-lock');
    holder = new Client({ connectionString: stack.variables.DATABASE_URL });
    await holder.connect();
    stack.onStop(() => holder.end());
  }, 120_000);
  afterAll(() => stack?.stop(), 60_000);

  const send = (conversationId: string) =>
    fetch(`${stack.api.url}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ conversationId, message: DEMO_MESSAGES.orderDirect }),
    });
  const outcomeOf = async (reply: Response) => {
    const body = (await reply.json()) as { turn?: { outcome?: string } };
    return { status: reply.status, outcome: body.turn?.outcome };
  };
  const committed = async (conversationId: string) => {
    const { rows } = await holder.query<{ turns: number; history: number[] }>(
      `SELECT c.turn_count AS turns,
              (SELECT coalesce(array_agg(h.turn_number ORDER BY h.turn_number), '{}') FROM ce_conversation_history h
                WHERE h.conversation_id = c.conversation_id) AS history
         FROM ce_conversation c WHERE c.conversation_id = $1`,
      [conversationId]
    );
    return rows[0];
  };
  /**
   * What the other sessions of this database that wait on a lock are doing: `commit` for the turn's commit (it has
   * begun to write ce_conversation_history; pg_stat_activity's text of a named prepared statement is no guide).
   */
  const lockWaiters = async () => {
    const { rows } = await holder.query<{ commits: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.granted AND l.mode = 'RowExclusiveLock'
                         AND l.relation = 'ce_conversation_history'::regclass) AS commits
         FROM pg_stat_activity a
        WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.wait_event_type = 'Lock'`
    );
    return rows.map((row) => (row.commits ? 'commit' : 'another statement'));
  };
  const eventually = async (check: () => Promise<boolean>, what: string, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await delay(100);
    }
  };

  it('cancels the statement after the grace, exits 0, writes nothing, and the turn commits once later', async () => {
    const first = await ConvengineProcess.start(['worker'], {
      name: 'worker running the commit',
      env: { ...stack.variables, WORKER_METRICS_PORT: '0', LOG_FORMAT: 'json' },
      ready: /worker polling/,
      readyTimeoutMs: 120_000,
    });
    stack.onStop(() => first.kill('SIGKILL'));
    const conversationId = randomUUID();
    expect(await outcomeOf(await send(conversationId))).toEqual({ status: 200, outcome: 'ANSWERED' });
    expect(await committed(conversationId)).toEqual({ turns: 1, history: [1] });

    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM ce_conversation WHERE conversation_id = $1 FOR NO KEY UPDATE', [conversationId]);
    const reply = send(conversationId);
    await eventually(async () => (await lockWaiters()).length > 0, 'a statement waiting on the lock');
    expect(await lockWaiters()).toEqual(['commit']);

    const asked = Date.now();
    first.child.kill('SIGTERM');
    // Past the forced stop as well: a worker whose pool waits for the stuck statement's client never exits.
    const forcedBy = WORKER_SHUTDOWN_GRACE_DEFAULT_MS + SHUTDOWN_FORCE_MARGIN_MS + MARGIN_MS;
    const code = await Promise.race([first.exited, delay(forcedBy).then(() => 'still running')]);
    const exitedAfter = Date.now() - asked;
    expect({ code, tail: code === 0 ? '' : first.tail() }).toEqual({ code: 0, tail: '' });
    expect(exitedAfter).toBeLessThan(WORKER_SHUTDOWN_GRACE_DEFAULT_MS + MARGIN_MS);
    // Cancelled in the server, not left waiting there: it cannot commit once the lock is gone.
    expect(await lockWaiters()).toEqual([]);
    await holder.query('ROLLBACK');
    expect(await committed(conversationId)).toEqual({ turns: 1, history: [1] });

    const second = await stack.startWorker();
    stack.onStop(() => second.shutdown());
    expect(await outcomeOf(await reply)).toEqual({ status: 200, outcome: 'ANSWERED' });
    expect(await committed(conversationId)).toEqual({ turns: 2, history: [1, 2] });
    const { rows } = await holder.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ce_audit WHERE conversation_id = $1 AND turn_number = 2 AND stage = 'ENGINE_RETURN'`,
      [conversationId]
    );
    expect(rows[0]?.n).toBe(1);
  }, 180_000);
});
