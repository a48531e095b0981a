import { Client as PgClient } from 'pg';
import { seedPacks } from '../../db/seed';
import { BOOKKEEPING_RETRY, STEP_TABLE, type RetrySpec } from '../../core/turn/steps';
import { ADMIN_DATABASE_URL } from '../support/database';
import { activityEntries } from '../support/history';
import { WorkflowHarness } from '../support/workflow-harness';

const OUTAGE_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Closes the database to connections, as a failover or restart does: new ones are refused (SQLSTATE 55000,
 * "database … is not currently accepting connections") and the open ones are cut. Answers how to open it again.
 */
async function closeDatabase(name: string): Promise<() => Promise<void>> {
  const admin = new PgClient({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await admin.query(
    'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name]
  );
  return async () => {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await admin.end();
  };
}

describe('a database outage mid-turn (a failover of tens of seconds)', () => {
  let h: WorkflowHarness;
  /** The step that meets the outage, as the turn reaches it: once per test. */
  let outageAt: 'PersistConversation' | 'AuditUserInput' | null = null;
  let outage: Promise<void> | null = null;
  /** When the outage ends, once it began: OUTAGE_MS later unless a test says otherwise. */
  let outageEnds = () => sleep(OUTAGE_MS);
  /** Told when the workflow has TurnFailure write a turn's failure row: each attempt. */
  let turnFailureStarts = () => undefined;
  const outageBefore = async (step: string) => {
    if (step !== outageAt) return;
    outageAt = null;
    let closed: () => void = () => undefined;
    const isClosed = new Promise<void>((resolve) => (closed = resolve));
    outage = closeDatabase(h.mcp.db.name).then(async (reopen) => {
      closed();
      await outageEnds();
      await reopen();
    });
    await isClosed;
  };
  beforeAll(async () => {
    h = await WorkflowHarness.start({
      activities: (base) => ({
        ...base,
        // The step meets a database that refuses connections for OUTAGE_MS, longer than its retry policy's
        // backoff (5 attempts, 0.2 s doubling: about 3 s).
        PersistConversation: async (input) => {
          await outageBefore('PersistConversation');
          return base.PersistConversation(input);
        },
        AuditUserInput: async (input) => {
          await outageBefore('AuditUserInput');
          return base.AuditUserInput(input);
        },
        TurnFailure: async (input) => {
          turnFailureStarts();
          return base.TurnFailure(input);
        },
      }),
    });
    await seedPacks(h.mcp.deps.db, ['faq']);
    await h.mcp.base.store.refresh();
  });
  afterAll(async () => {
    await outage;
    await h?.stop();
  });

  /** `stepErrors`: the STEP_ERROR rows the turn is left with (step, errorType). */
  async function turnThroughOutage(step: 'PersistConversation' | 'AuditUserInput', stepErrors: string[][]) {
    outageAt = step;
    outage = null;
    const started = Date.now();
    const reply = await h.send({ message: 'hi' });
    expect(reply.kind).toBe('COMPLETED');
    expect(outage).not.toBeNull();
    await outage;
    expect(Date.now() - started).toBeGreaterThanOrEqual(OUTAGE_MS);
    const { rows } = await h.mcp.db.pool.query<{ stage: string; payload: Record<string, unknown> }>(
      'SELECT stage, payload_json AS payload FROM ce_audit WHERE conversation_id = $1 ORDER BY audit_id',
      [reply.ref.conversationId]
    );
    const stages = rows.map((r) => r.stage);
    expect(stages).toContain('ENGINE_RETURN');
    expect(stages).not.toContain('ENGINE_KNOWN_FAILURE');
    expect(stages).not.toContain('ENGINE_UNKNOWN_FAILURE');
    const errors = rows.filter((r) => r.stage === 'STEP_ERROR');
    expect(errors.map((r) => [r.payload['step'], r.payload['errorType']])).toEqual(stepErrors);
    const turns = await h.mcp.db.pool.query('SELECT turn_count FROM ce_conversation WHERE conversation_id = $1', [
      reply.ref.conversationId,
    ]);
    expect(turns.rows[0]).toEqual({ turn_count: 1 });
  }

  it('a regular step (the commit, in a step run) waits for the database; the turn completes with its rows', async () => {
    // The attempt whose commit failed waited for the database, so its STEP_ERROR row was written; one was enough.
    await turnThroughOutage('PersistConversation', [['PersistConversation', 'INTERNAL']]);
  }, 90_000);

  it("a local step run's held rows wait for the database, and are written by the same attempt", async () => {
    // AuditUserInput only emits its row; the local activity's one write of its steps' rows meets the outage.
    await turnThroughOutage('AuditUserInput', []);
  }, 90_000);

  /**
   * A turn whose commit meets an outage past its window, shortened to 5 s (1 s per attempt) in `retries`: each of the
   * commit's five attempts meets the outage, waits its share and fails, its rows unwritten; the last one fails the turn.
   * The database comes back `reopenAfterMs` after TurnFailure first starts (after 30 s when the workflow never
   * schedules it). Answers the turn's rows, once its failure row is known to be written once, and last; when the turn
   * ended and the database came back; and how many attempts of TurnFailure there were.
   */
  async function failedTurnThroughOutage(retries: RetrySpec[], reopenAfterMs: number) {
    const windows = [...new Set(retries)].map((retry) => jest.replaceProperty(retry, 'databaseOutageMs', 5_000));
    const seen = { turnFailureAttempts: 0, reopenedAt: Number.POSITIVE_INFINITY, endedAt: 0 };
    outageEnds = () =>
      new Promise<void>((resolve) => {
        const giveUp = setTimeout(resolve, 30_000);
        turnFailureStarts = () => {
          seen.turnFailureAttempts += 1;
          if (seen.turnFailureAttempts > 1) return;
          clearTimeout(giveUp);
          setTimeout(resolve, reopenAfterMs);
        };
      }).then(() => {
        seen.reopenedAt = Date.now();
      });
    outageAt = 'PersistConversation';
    outage = null;
    try {
      const reply = await h.send({ message: 'hi' });
      seen.endedAt = Date.now();
      await outage;
      expect(reply).toMatchObject({ kind: 'FAILED', failureType: 'INTERNAL', retryable: true });
      const { rows } = await h.mcp.db.pool.query<{ stage: string; payload: Record<string, unknown> }>(
        'SELECT stage, payload_json AS payload FROM ce_audit WHERE conversation_id = $1 ORDER BY audit_id',
        [reply.ref.conversationId]
      );
      const failures = rows.filter((r) => r.stage.startsWith('ENGINE_') && r.stage.endsWith('_FAILURE'));
      expect(failures).toEqual([rows.at(-1)]);
      expect(failures[0]).toMatchObject({
        stage: 'ENGINE_KNOWN_FAILURE',
        payload: { step: 'PersistConversation', errorCode: 'INTERNAL', recoverable: true, attempt: 5 },
      });
      return { ...seen, rows, workflowId: reply.ref.workflowId };
    } finally {
      windows.forEach((w) => w.restore());
      outageEnds = () => sleep(OUTAGE_MS);
      turnFailureStarts = () => undefined;
    }
  }

  it('an outage past the window fails the turn, whose failure row is written once the database is back', async () => {
    // The database comes back 4 s after TurnFailure first starts, when retries alone (5 attempts, 0.2 s doubling: 3 s)
    // would have given up: its attempts wait for it as a step's do.
    const { rows, turnFailureAttempts } = await failedTurnThroughOutage([BOOKKEEPING_RETRY], 4_000);
    // No attempt of the commit could write its STEP_ERROR; the turn's failure row is written once, and last.
    expect(rows.filter((r) => r.stage === 'STEP_ERROR')).toEqual([]);
    expect(turnFailureAttempts).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it("an outage past both windows (the commit's and TurnFailure's) keeps the turn open until its failure row is written", async () => {
    // TurnFailure's window is 5 s too. The database comes back 20 s after TurnFailure first starts: past its 5
    // attempts' waits and backoff (about 8 s), after which it used to give up, the turn failing with no failure row.
    const retries = [BOOKKEEPING_RETRY, STEP_TABLE.TurnFailure.retry];
    const { endedAt, reopenedAt, turnFailureAttempts, workflowId } = await failedTurnThroughOutage(retries, 20_000);
    // The turn ended only once the row could be written, after the database came back, TurnFailure's attempts
    // outlasting the ones any other failure gets.
    expect(endedAt).toBeGreaterThanOrEqual(reopenedAt);
    expect(turnFailureAttempts).toBeGreaterThan(STEP_TABLE.TurnFailure.retry.maximumAttempts);
    const scheduled = activityEntries(await h.history(workflowId)).filter((a) => a.type === 'TurnFailure');
    expect(scheduled).toMatchObject([{ local: false }]);
  }, 120_000);
});
