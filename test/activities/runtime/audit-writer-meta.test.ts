/** What the audit writer stores per row: the payload and its shared _meta, bounded and always writable. */
import { withHeldAudits, writeAudits } from '../../../activities/runtime/audit-writer';
import { audit } from '../../../core/audit';
import { FULL_AUDIT_POLICY as FULL } from '../../../core/audit/policy';
import { safeInputParams } from '../../../core/params/safe';
import type { Session } from '../../../core/session';
import type { Json } from '../../../core/json';
import { insertAudits, listAudits } from '../../../db/repositories/audit';
import { useAuditWriterFixture } from '../../support/audit-writer-fixture';

describe('audit writer: payloads and _meta (activities/runtime/audit-writer.ts)', () => {
  const fx = useAuditWriterFixture();
  const { conversationId, turn, session, write } = fx;

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
    await withHeldAudits(fx.deps, async () => {
      await writeAudits({ ...fx.deps, clock }, FULL, { ...write('07-Rules', []), session: rich, records: [stamped] });
      await writeAudits({ ...fx.deps, clock }, FULL, { ...write('08-Memory', ['STEP_EXIT']), session: other });
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
    const stored = (await listAudits(fx.tdb.db, conversationId)).filter((r) => /\/0(7|8)-/.test(r.idempotencyKey));
    expect(stored.map((r) => r.payload)).toEqual([
      { ruleId: 7, _meta: meta(rich, 'RULE_APPLIED', 'OLD', 'S0') },
      { at: '08-Memory', _meta: meta(other, 'STEP_EXIT', 'OTHER', 'ASK') },
    ]);
    expect(stored[0]?.payload['_meta']).toMatchObject({ inputParams: { droppedSystemPromptVars: ['schema_json'] } });
  });

  it('keeps a context over 64 KiB out of _meta, saying how big it was, so one big tool result is not copied per row', async () => {
    const big: Session = { ...session, context: { mcp: { observations: [{ result: 'x'.repeat(70_000) }] } } };
    await writeAudits(fx.deps, FULL, { ...write('09-McpToolCall', ['STEP_ENTER', 'STEP_EXIT']), session: big });
    const stored = (await listAudits(fx.tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes('/09-'));
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      const meta = row.payload['_meta'] as { context: { _elided: string; bytes: number } };
      expect(meta.context.bytes).toBeGreaterThan(70_000);
      expect(meta.context._elided).toMatch(/over the 65536 bytes an audit row keeps/);
      expect(JSON.stringify(row.payload).length).toBeLessThan(2_000);
    }
  });

  it('keeps input params over 64 KiB out of _meta the same way (a model-written value would be copied per row)', async () => {
    const big: Session = { ...session, inputParams: { standalone_query: 'Q'.repeat(300_000) } };
    await writeAudits(fx.deps, FULL, { ...write('10-DialogueAct', ['STEP_ENTER', 'STEP_EXIT']), session: big });
    const stored = (await listAudits(fx.tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes('/10-'));
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      const meta = row.payload['_meta'] as { inputParams: { _elided: string; bytes: number } };
      expect(meta.inputParams._elided).toMatch(
        /^inputParams is \d+ bytes as JSON, over the 65536 bytes an audit row keeps/
      );
      expect(JSON.stringify(row.payload).length).toBeLessThan(2_000);
    }
  });

  it('writes a row whose session is nested too deep for JSON.stringify, saying so in _meta', async () => {
    let deep: Json = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const broken: Session = { ...session, context: { deep } };
    await writeAudits(fx.deps, FULL, { ...write('11-McpPlan', ['STEP_ERROR']), session: broken });
    const stored = (await listAudits(fx.tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes('/11-'));
    expect(stored.map((r) => (r.payload['_meta'] as { context: Json }).context)).toEqual([
      { _elided: 'context cannot be written as JSON (RangeError)' },
    ]);
  });

  it('stores rows without _meta parts exactly as given', async () => {
    const payload = { plain: true, list: [1, 'two'] };
    await insertAudits(fx.tdb.db, [
      {
        conversationId,
        turnNumber: 1,
        stage: 'PLAIN',
        payload,
        idempotencyKey: 'plain/0',
        workflowId: null,
        runId: null,
      },
    ]);
    const stored = (await listAudits(fx.tdb.db, conversationId)).filter((r) => r.idempotencyKey === 'plain/0');
    expect(stored.map((r) => r.payload)).toEqual([payload]);
  });

  it('stores a lone surrogate or a NUL, in a payload, a key or the shared _meta, as U+FFFD: the batch is not refused', async () => {
    // A summary cut in the middle of a surrogate pair once made PostgreSQL refuse the whole batch (22P02).
    const cut: Session = { ...session, inputParams: { memory_session_summary: 'user=hi \uD83D' } };
    const payload = { text: 'half \uD83D', 'key \uDCB0': 'nul \u0000', pair: '\u{1F4B0}' };
    await writeAudits(fx.deps, FULL, {
      ...write('30-Memory', []),
      session: cut,
      records: [audit('MEMORY_UPDATED', payload)],
    });
    const [row] = (await listAudits(fx.tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes('/30-Memory/'));
    expect(row?.payload).toMatchObject({ text: 'half \uFFFD', 'key \uFFFD': 'nul \uFFFD', pair: '\u{1F4B0}' });
    expect(row?.payload['_meta']).toMatchObject({ inputParams: { memory_session_summary: 'user=hi \uFFFD' } });
  });
});
