import {
  insertAudits,
  listAudits,
  stepDurations,
  writeAuditBatch,
  type AuditInsert,
} from '../../../db/repositories/audit';
import { listAuditsAfter } from '../../../db/repositories/audit-pages';
import { ensureConversation } from '../../../db/repositories/conversation';
import { createTestDatabase, type TestDatabase } from '../../support/database';

/** A share no test row comes near. */
const ANY_ROWS = { rows: 100, maxBytes: 1024 * 1024 };

describe('audit repository (db/repositories/audit.ts)', () => {
  let tdb: TestDatabase;
  const conversationId = '00000000-0000-4000-8000-0000000000cd';

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await ensureConversation(tdb.db, conversationId);
  });
  afterAll(async () => tdb.drop());

  const row = (key: string, stage: string, payload: AuditInsert['payload'], turnNumber = 1): AuditInsert => ({
    conversationId,
    turnNumber,
    stage,
    payload,
    idempotencyKey: `durations/${key}`,
    workflowId: null,
    runId: null,
    meta: { own: { stage }, shared: { context: { big: 'x'.repeat(2000) } } },
  });

  it('sums the durations of a turn per step from its STEP_EXIT rows, skipping malformed ones', async () => {
    await insertAudits(tdb.db, [
      row('0', 'STEP_EXIT', { step: 'Rules', durationMs: 3 }),
      row('1', 'STEP_EXIT', { step: 'Memory', durationMs: 0 }),
      row('2', 'STEP_EXIT', { step: 'Rules', durationMs: 4 }),
      row('3', 'STEP_EXIT', { step: 'Odd', durationMs: '5' }),
      row('4', 'STEP_EXIT', { step: 7, durationMs: 5 }),
      row('5', 'STEP_EXIT', { step: 'NoDuration' }),
      row('6', 'STEP_ENTER', { step: 'Rules', durationMs: 100 }),
      row('7', 'STEP_EXIT', { step: 'Rules', durationMs: 100 }, 2),
      row('8', 'STEP_EXIT', { step: 'Nested', durationMs: { ms: 1 } }),
    ]);
    expect(await stepDurations(tdb.db, conversationId, 1, null)).toEqual({ Rules: 7, Memory: 0 });
    expect(await stepDurations(tdb.db, conversationId, 2, null)).toEqual({ Rules: 100 });
    expect(await stepDurations(tdb.db, conversationId, 3, null)).toEqual({});
  });

  it("sums only the given run's STEP_EXIT rows: a failed run's steps stay beside the retry's", async () => {
    const ofRun = (key: string, runId: string, durationMs: number): AuditInsert => ({
      ...row(`run-${key}`, 'STEP_EXIT', { step: 'Rules', durationMs }, 4),
      runId,
    });
    await insertAudits(tdb.db, [ofRun('0', 'failed-run', 40), ofRun('1', 'retry-run', 5), ofRun('2', 'retry-run', 6)]);
    expect(await stepDurations(tdb.db, conversationId, 4, 'retry-run')).toEqual({ Rules: 11 });
    expect(await stepDurations(tdb.db, conversationId, 4, 'failed-run')).toEqual({ Rules: 40 });
  });

  it('reads the rows after several cursors in one statement, at most a page per cursor, oldest first', async () => {
    const other = '00000000-0000-4000-8000-0000000000ce';
    const quiet = '00000000-0000-4000-8000-0000000000cf';
    await ensureConversation(tdb.db, other);
    await ensureConversation(tdb.db, quiet);
    const write = (conversation: string, key: string) =>
      insertAudits(tdb.db, [
        {
          conversationId: conversation,
          turnNumber: 1,
          stage: 'S',
          payload: { key },
          idempotencyKey: `after/${key}`,
          workflowId: null,
          runId: null,
        },
      ]);
    for (const key of ['x1', 'o1', 'x2', 'o2', 'x3', 'o3'])
      await write(key.startsWith('x') ? conversationId : other, key);
    const mine = (await listAuditsAfter(tdb.db, [{ conversationId, afterAuditId: 0 }], ANY_ROWS)).filter((r) =>
      String(r.payload['key']).startsWith('x')
    );
    const x1 = mine[0]?.auditId as number;
    const read = await listAuditsAfter(
      tdb.db,
      [
        { conversationId, afterAuditId: x1 },
        { conversationId: other, afterAuditId: 0 },
        { conversationId: quiet, afterAuditId: 0 },
      ],
      { rows: 2, maxBytes: 1024 * 1024 }
    );
    const byConversation = (id: string) => read.filter((r) => r.conversationId === id).map((r) => r.payload['key']);
    expect(byConversation(conversationId)).toEqual(['x2', 'x3']);
    expect(byConversation(other)).toEqual(['o1', 'o2']);
    expect(byConversation(quiet)).toEqual([]);
    expect(read.every((r) => typeof r.auditId === 'number' && r.createdAt instanceof Date)).toBe(true);
    expect(await listAuditsAfter(tdb.db, [], ANY_ROWS)).toEqual([]);
  });

  it("refuses a batch whole, writes and deletes nothing, once its run's last row exists; not the batch carrying it", async () => {
    const fenced = '00000000-0000-4000-8000-0000000000d0';
    await ensureConversation(tdb.db, fenced);
    const ofRun = (key: string, stage = 'STEP_ENTER'): AuditInsert => ({
      conversationId: fenced,
      turnNumber: 1,
      stage,
      payload: { key },
      idempotencyKey: `t@run/${key}`,
      workflowId: 't',
      runId: 'run',
    });
    const end = 't@run/turn-failure/0';
    const step = { rows: [ofRun('01-Step/0')], replaceUnder: 't@run/01-Step/' };
    expect(await writeAuditBatch(tdb.db, [step], [], [end])).toEqual({ fenced: false, firstStored: [] });
    // The row that ends the run is not fenced by itself.
    const last = { rows: [ofRun('turn-failure/0', 'ENGINE_KNOWN_FAILURE')], replaceUnder: 't@run/turn-failure/' };
    expect((await writeAuditBatch(tdb.db, [last], ['ENGINE_KNOWN_FAILURE'])).fenced).toBe(false);
    // A straggling attempt: its rows, and its rewrite of the segment it owns (which would drop 01-Step/0), refused.
    const straggler = { rows: [ofRun('01-Step/1'), ofRun('02-Tool/0')], replaceUnder: 't@run/01-Step/' };
    expect(await writeAuditBatch(tdb.db, [straggler], ['STEP_ENTER'], [end])).toEqual({
      fenced: true,
      firstStored: [],
    });
    const keys = (await listAudits(tdb.db, fenced)).map((a) => a.idempotencyKey);
    expect(keys).toEqual(['t@run/01-Step/0', end]);
  });
});
