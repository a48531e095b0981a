import { systemClock } from '../../../activities/deps';
import { withHeldAudits, writeAudits, type AuditWrite } from '../../../activities/runtime/audit-writer';
import { audit } from '../../../core/audit';
import { safeInputParams } from '../../../core/params/safe';
import type { Session } from '../../../core/session';
import { insertAudits, listAudits } from '../../../db/repositories/audit';
import { ensureConversation } from '../../../db/repositories/conversation';
import { sessionFor, turnInput } from '../../support/config-rows';
import { createTestDatabase, type TestDatabase } from '../../support/database';

describe('audit writer (activities/runtime/audit-writer.ts)', () => {
  let tdb: TestDatabase;
  /** Audit write statements sent since the test began. */
  let statements: number;
  let deps: Parameters<typeof writeAudits>[0];
  const conversationId = '00000000-0000-4000-8000-0000000000ab';
  const turn = turnInput('hello', { conversationId, turnNumber: 1 });
  const session = sessionFor('hello', { conversationId });

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await ensureConversation(tdb.db, conversationId);
    const client = tdb.db.$client;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    // Counts the audit writes sent; the database itself is the real one.
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const name = (args[0] as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && name.startsWith('ce_audit_write')) statements += 1;
      return query(...args);
    };
    deps = { db: tdb.db, clock: systemClock };
  });
  afterAll(async () => tdb.drop());
  beforeEach(() => {
    statements = 0;
  });

  const write = (keySegment: string, stages: string[], extra: Partial<AuditWrite> = {}): AuditWrite => ({
    turn,
    session,
    keySegment,
    records: stages.map((stage) => audit(stage, { at: keySegment })),
    ...extra,
  });
  const rowsUnder = async (segment: string) =>
    (await listAudits(tdb.db, conversationId))
      .filter((r) => r.idempotencyKey.startsWith(`${turn.turnId}/${segment}/`))
      .map((r) => [r.idempotencyKey.slice(turn.turnId.length + 1), r.stage]);

  it('replaces what an earlier attempt left under the same key segment, and keeps its error rows', async () => {
    await writeAudits(deps, write('01-Rules', ['STEP_ENTER', 'RULE_APPLIED', 'STEP_EXIT']));
    await writeAudits(deps, write('01-Rules', ['STEP_ERROR'], { suffix: () => 'error-1' }));
    await writeAudits(deps, write('01-Rules', ['STEP_ENTER', 'STEP_EXIT']));
    expect(await rowsUnder('01-Rules')).toEqual([
      ['01-Rules/0', 'STEP_ENTER'],
      ['01-Rules/1', 'STEP_EXIT'],
      ['01-Rules/error-1', 'STEP_ERROR'],
    ]);
    expect(statements).toBe(3);
  });

  it('leaves a similar but different segment alone', async () => {
    await writeAudits(deps, write('02-Memory', ['STEP_ENTER', 'STEP_EXIT']));
    await writeAudits(deps, write('02-Memory-carried', ['CARRIED']));
    await writeAudits(deps, write('02-Memory', ['STEP_ENTER']));
    expect(await rowsUnder('02-Memory')).toEqual([['02-Memory/0', 'STEP_ENTER']]);
    expect(await rowsUnder('02-Memory-carried')).toEqual([['02-Memory-carried/0', 'CARRIED']]);
  });

  it('holds the writes of a step run and writes them in one statement when the run ends', async () => {
    const result = await withHeldAudits(deps, async () => {
      await writeAudits(deps, write('03-Guardrail', ['STEP_ENTER', 'STEP_EXIT']));
      await writeAudits(deps, write('04-Memory', ['STEP_ENTER', 'MEMORY_UPDATED', 'STEP_EXIT']));
      expect(await rowsUnder('03-Guardrail')).toEqual([]);
      return 'done';
    });
    expect(result).toBe('done');
    expect(await rowsUnder('03-Guardrail')).toEqual([
      ['03-Guardrail/0', 'STEP_ENTER'],
      ['03-Guardrail/1', 'STEP_EXIT'],
    ]);
    expect((await rowsUnder('04-Memory')).map(([, stage]) => stage)).toEqual([
      'STEP_ENTER',
      'MEMORY_UPDATED',
      'STEP_EXIT',
    ]);
    expect(statements).toBe(1);
  });

  it('writes what a failed run held, then rethrows its failure', async () => {
    const failure = new Error('step failed');
    await expect(
      withHeldAudits(deps, async () => {
        await writeAudits(deps, write('05-Rules', ['STEP_ENTER']));
        await writeAudits(deps, write('05-Rules', ['STEP_ERROR'], { suffix: () => 'error-1' }));
        throw failure;
      })
    ).rejects.toBe(failure);
    expect(await rowsUnder('05-Rules')).toEqual([
      ['05-Rules/0', 'STEP_ENTER'],
      ['05-Rules/error-1', 'STEP_ERROR'],
    ]);
  });

  it('stores each payload with its full _meta, the shared part laid over every row of its write', async () => {
    const clock = { now: () => new Date('2026-03-01T10:00:01.000Z') };
    const rich: Session = {
      ...session,
      intent: 'LOAN',
      state: 'ASK',
      inputParams: { amount: 5, schema_json: { big: true }, nested: { a: [1, 2] } },
      userInputParams: { amount: 5 },
      context: { customerId: '1234', deep: { list: [{ x: null }] } },
    };
    const stamped = {
      ...audit('RULE_APPLIED', { ruleId: 7, _meta: 'replaced' }),
      meta: { intent: 'OLD', state: 'S0' },
    };
    const other = { ...rich, intent: 'OTHER', inputParams: {}, context: { only: 'this' } };
    await withHeldAudits(deps, async () => {
      await writeAudits({ ...deps, clock }, { ...write('07-Rules', []), session: rich, records: [stamped] });
      await writeAudits({ ...deps, clock }, { ...write('08-Memory', ['STEP_EXIT']), session: other });
    });
    const meta = (s: Session, stage: string, intent: string, state: string) => ({
      stage,
      conversationId,
      turnNumber: 1,
      turnId: turn.turnId,
      emittedAt: '2026-03-01T10:00:01.000Z',
      intent,
      state,
      inputParams: safeInputParams(s.inputParams),
      userInputParams: s.userInputParams,
      context: s.context,
    });
    const stored = (await listAudits(tdb.db, conversationId)).filter((r) => /\/0(7|8)-/.test(r.idempotencyKey));
    expect(stored.map((r) => r.payload)).toEqual([
      { ruleId: 7, _meta: meta(rich, 'RULE_APPLIED', 'OLD', 'S0') },
      { at: '08-Memory', _meta: meta(other, 'STEP_EXIT', 'OTHER', 'ASK') },
    ]);
    expect(stored[0]?.payload['_meta']).toMatchObject({ inputParams: { droppedSystemPromptVars: ['schema_json'] } });
  });

  it('stores rows without _meta parts exactly as given', async () => {
    const payload = { plain: true, list: [1, 'two'] };
    await insertAudits(tdb.db, [
      { conversationId, turnNumber: 1, stage: 'PLAIN', payload, idempotencyKey: 'plain/0', workflowId: null },
    ]);
    const stored = (await listAudits(tdb.db, conversationId)).filter((r) => r.idempotencyKey === 'plain/0');
    expect(stored.map((r) => r.payload)).toEqual([payload]);
  });

  it('fails the run when its held rows cannot be written', async () => {
    const elsewhere = turnInput('hello', { conversationId: '00000000-0000-4000-8000-0000000000ff', turnNumber: 1 });
    // No such conversation: the foreign key refuses the rows.
    await expect(
      withHeldAudits(deps, () => writeAudits(deps, { ...write('06-Rules', ['STEP_ENTER']), turn: elsewhere }))
    ).rejects.toThrow(/foreign key/);
  });
});
