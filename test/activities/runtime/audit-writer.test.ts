import { MockActivityEnvironment } from '@temporalio/testing';
import { asyncLocalStorage, type Context } from '@temporalio/activity';
import { systemClock } from '../../../activities/deps';
import { withHeldAudits, writeAudits, type AuditWrite } from '../../../activities/runtime/audit-writer';
import { configuredAuditGate } from '../../../activities/runtime/audit-gate';
import { audit } from '../../../core/audit';
import { FULL_AUDIT_POLICY as FULL, type AuditPolicy } from '../../../core/audit/policy';
import { safeInputParams } from '../../../core/params/safe';
import type { Session } from '../../../core/session';
import type { Json } from '../../../core/json';
import { insertAudits, listAudits } from '../../../db/repositories/audit';
import { ensureConversation } from '../../../db/repositories/conversation';
import { sessionFor, turnInput } from '../../support/config-rows';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { refuseAuditStage } from '../../support/refused-audit';

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
    deps = { db: tdb.db, clock: systemClock, audit: configuredAuditGate(systemClock) };
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
    await writeAudits(deps, FULL, write('01-Rules', ['STEP_ENTER', 'RULE_APPLIED', 'STEP_EXIT']));
    await writeAudits(deps, FULL, write('01-Rules', ['STEP_ERROR'], { suffix: () => 'error-1' }));
    await writeAudits(deps, FULL, write('01-Rules', ['STEP_ENTER', 'STEP_EXIT']));
    expect(await rowsUnder('01-Rules')).toEqual([
      ['01-Rules/0', 'STEP_ENTER'],
      ['01-Rules/1', 'STEP_EXIT'],
      ['01-Rules/error-1', 'STEP_ERROR'],
    ]);
    expect(statements).toBe(3);
  });

  it('leaves a similar but different segment alone', async () => {
    await writeAudits(deps, FULL, write('02-Memory', ['STEP_ENTER', 'STEP_EXIT']));
    await writeAudits(deps, FULL, write('02-Memory-carried', ['CARRIED']));
    await writeAudits(deps, FULL, write('02-Memory', ['STEP_ENTER']));
    expect(await rowsUnder('02-Memory')).toEqual([['02-Memory/0', 'STEP_ENTER']]);
    expect(await rowsUnder('02-Memory-carried')).toEqual([['02-Memory-carried/0', 'CARRIED']]);
  });

  it('holds the writes of a step run and writes them in one statement when the run ends', async () => {
    const result = await withHeldAudits(deps, async () => {
      await writeAudits(deps, FULL, write('03-Guardrail', ['STEP_ENTER', 'STEP_EXIT']));
      await writeAudits(deps, FULL, write('04-Memory', ['STEP_ENTER', 'MEMORY_UPDATED', 'STEP_EXIT']));
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
        await writeAudits(deps, FULL, write('05-Rules', ['STEP_ENTER']));
        await writeAudits(deps, FULL, write('05-Rules', ['STEP_ERROR'], { suffix: () => 'error-1' }));
        throw failure;
      })
    ).rejects.toBe(failure);
    expect(await rowsUnder('05-Rules')).toEqual([
      ['05-Rules/0', 'STEP_ENTER'],
      ['05-Rules/error-1', 'STEP_ERROR'],
    ]);
  });

  it('writes nothing once Temporal has given up on the attempt: its rows would land after the turn failed', async () => {
    const env = new MockActivityEnvironment({ isLocal: true });
    let resume = (): void => undefined;
    const stuck = new Promise<void>((resolve) => (resume = resolve));
    const attempt = env.run(() =>
      withHeldAudits(deps, async () => {
        await writeAudits(deps, FULL, write('06-Late', ['STEP_ENTER']));
        await stuck;
        await writeAudits(deps, FULL, write('06-Late', ['STEP_ENTER', 'STEP_EXIT']));
        return 'too late';
      })
    );
    // A local activity that outlives its start-to-close is cancelled (reason TIMED_OUT), not stopped.
    env.cancel('TIMED_OUT');
    resume();
    await expect(attempt).resolves.toBe('too late');
    await env.run(() => writeAudits(deps, FULL, write('07-Late', ['STEP_ERROR'])));
    expect(await rowsUnder('06-Late')).toEqual([]);
    expect(await rowsUnder('07-Late')).toEqual([]);
    expect(statements).toBe(0);
  });

  describe('under Temporal, where each run of a turn has rows of its own', () => {
    /** Runs `work` as an activity of the given run of the turn (the worker sets this context). */
    const inRun = <T>(runId: string, work: () => Promise<T>): Promise<T> => {
      const context = { info: { workflowExecution: { workflowId: turn.turnId, runId } } } as unknown as Context;
      return asyncLocalStorage.run(context, work);
    };
    const rowsOf = async (segment: string) =>
      (await listAudits(tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes(`/${segment}/`));

    it("a second run appends its rows after the first run's and leaves those as they were", async () => {
      await inRun('run-a', () => writeAudits(deps, FULL, write('12-Schema', ['STEP_ENTER', 'LLM_INPUT', 'STEP_EXIT'])));
      const first = await rowsOf('12-Schema');
      await inRun('run-b', () => writeAudits(deps, FULL, write('12-Schema', ['STEP_ENTER', 'STEP_EXIT'])));
      const all = await rowsOf('12-Schema');
      // The first run's rows: same ids, keys, stages and times as before the second run wrote.
      expect(all.filter((r) => r.runId === 'run-a')).toEqual(first);
      const second = all.filter((r) => r.runId === 'run-b');
      expect(second.map((r) => [r.idempotencyKey, r.stage])).toEqual([
        [`${turn.turnId}@run-b/12-Schema/0`, 'STEP_ENTER'],
        [`${turn.turnId}@run-b/12-Schema/1`, 'STEP_EXIT'],
      ]);
      const lastOfFirst = Math.max(...first.map((r) => r.auditId));
      expect(second.every((r) => r.auditId > lastOfFirst)).toBe(true);
    });

    it('an activity retried within its run still rewrites its rows in place and drops what the last attempt did not write', async () => {
      await inRun('run-c', async () => {
        await writeAudits(deps, FULL, write('13-Plan', ['STEP_ENTER', 'LLM_INPUT', 'STEP_EXIT']));
        await writeAudits(deps, FULL, write('13-Plan', ['STEP_ERROR'], { suffix: () => 'error-1' }));
      });
      const firstAttempt = await rowsOf('13-Plan');
      await inRun('run-c', () => writeAudits(deps, FULL, write('13-Plan', ['STEP_ENTER', 'STEP_EXIT'])));
      const rows = await rowsOf('13-Plan');
      expect(rows.map((r) => [r.idempotencyKey.slice(turn.turnId.length), r.stage])).toEqual([
        ['@run-c/13-Plan/0', 'STEP_ENTER'],
        ['@run-c/13-Plan/1', 'STEP_EXIT'],
        ['@run-c/13-Plan/error-1', 'STEP_ERROR'],
      ]);
      // Rewritten in place: the ids the first attempt's rows had.
      expect(rows.map((r) => r.auditId)).toEqual([0, 1, 3].map((i) => firstAttempt[i]?.auditId));
    });
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
      await writeAudits({ ...deps, clock }, FULL, { ...write('07-Rules', []), session: rich, records: [stamped] });
      await writeAudits({ ...deps, clock }, FULL, { ...write('08-Memory', ['STEP_EXIT']), session: other });
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

  it('keeps a context over 64 KiB out of _meta, saying how big it was, so one big tool result is not copied per row', async () => {
    const big: Session = { ...session, context: { mcp: { observations: [{ result: 'x'.repeat(70_000) }] } } };
    await writeAudits(deps, FULL, { ...write('09-McpToolCall', ['STEP_ENTER', 'STEP_EXIT']), session: big });
    const stored = (await listAudits(tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes('/09-'));
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      const meta = row.payload['_meta'] as { context: { _elided: string; bytes: number } };
      expect(meta.context.bytes).toBeGreaterThan(70_000);
      expect(meta.context._elided).toMatch(/over the 65536 bytes _meta keeps/);
      expect(JSON.stringify(row.payload).length).toBeLessThan(2_000);
    }
  });

  it('keeps input params over 64 KiB out of _meta the same way (a model-written value would be copied per row)', async () => {
    const big: Session = { ...session, inputParams: { standalone_query: 'Q'.repeat(300_000) } };
    await writeAudits(deps, FULL, { ...write('10-DialogueAct', ['STEP_ENTER', 'STEP_EXIT']), session: big });
    const stored = (await listAudits(tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes('/10-'));
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      const meta = row.payload['_meta'] as { inputParams: { _elided: string; bytes: number } };
      expect(meta.inputParams._elided).toMatch(/^inputParams is \d+ bytes as JSON, over the 65536 bytes _meta keeps/);
      expect(JSON.stringify(row.payload).length).toBeLessThan(2_000);
    }
  });

  it('writes a row whose session is nested too deep for JSON.stringify, saying so in _meta', async () => {
    let deep: Json = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const broken: Session = { ...session, context: { deep } };
    await writeAudits(deps, FULL, { ...write('11-McpPlan', ['STEP_ERROR']), session: broken });
    const stored = (await listAudits(tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes('/11-'));
    expect(stored.map((r) => (r.payload['_meta'] as { context: Json }).context)).toEqual([
      { _elided: 'context cannot be written as JSON (RangeError)' },
    ]);
  });

  it('stores rows without _meta parts exactly as given', async () => {
    const payload = { plain: true, list: [1, 'two'] };
    await insertAudits(tdb.db, [
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
    const stored = (await listAudits(tdb.db, conversationId)).filter((r) => r.idempotencyKey === 'plain/0');
    expect(stored.map((r) => r.payload)).toEqual([payload]);
  });

  it('fails the run when its held rows cannot be written', async () => {
    const elsewhere = turnInput('hello', { conversationId: '00000000-0000-4000-8000-0000000000ff', turnNumber: 1 });
    // No such conversation: the foreign key refuses the rows.
    await expect(
      withHeldAudits(deps, () => writeAudits(deps, FULL, { ...write('06-Rules', ['STEP_ENTER']), turn: elsewhere }))
    ).rejects.toThrow(/foreign key/);
  });

  it('stores a lone surrogate or a NUL, in a payload, a key or the shared _meta, as U+FFFD: the batch is not refused', async () => {
    // A summary cut in the middle of a surrogate pair once made PostgreSQL refuse the whole batch (22P02).
    const cut: Session = { ...session, inputParams: { memory_session_summary: 'user=hi \uD83D' } };
    const payload = { text: 'half \uD83D', 'key \uDCB0': 'nul \u0000', pair: '\u{1F4B0}' };
    await writeAudits(deps, FULL, {
      ...write('30-Memory', []),
      session: cut,
      records: [audit('MEMORY_UPDATED', payload)],
    });
    const [row] = (await listAudits(tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes('/30-Memory/'));
    expect(row?.payload).toMatchObject({ text: 'half \uFFFD', 'key \uFFFD': 'nul \uFFFD', pair: '\u{1F4B0}' });
    expect(row?.payload['_meta']).toMatchObject({ inputParams: { memory_session_summary: 'user=hi \uFFFD' } });
  });

  describe('when PostgreSQL refuses a batch, what says the attempt failed is still stored, on its own', () => {
    const failureOf = (keySegment: string) => (failure: unknown) =>
      write(keySegment, ['STEP_ERROR', 'ENGINE_KNOWN_FAILURE'], {
        records: [
          audit('STEP_ERROR', { errorType: (failure as { type: string }).type }),
          audit('ENGINE_KNOWN_FAILURE', { recoverable: (failure as { retryable: boolean }).retryable }),
        ],
        suffix: (index) => (index === 0 ? 'error-1' : 'turn-failure'),
      });
    const refusedRun = { type: 'INTERNAL', nonRetryable: true, message: expect.stringMatching(/SQLSTATE 22023/) };
    beforeAll(async () => refuseAuditStage(tdb.db, 'REFUSED'));

    it("a step run's batch: none of its rows, then its last step's STEP_ERROR and the turn's failure row", async () => {
      const err = await withHeldAudits(deps, async () => {
        await writeAudits(deps, FULL, {
          ...write('31-Rules', ['STEP_ENTER', 'STEP_EXIT']),
          ifRefused: failureOf('31-Rules'),
        });
        await writeAudits(deps, FULL, {
          ...write('32-Memory', ['STEP_ENTER', 'REFUSED', 'STEP_EXIT']),
          ifRefused: failureOf('32-Memory'),
        });
      }).catch((e: unknown) => e);
      expect(err).toMatchObject(refusedRun);
      expect(await rowsUnder('31-Rules')).toEqual([]);
      expect(await rowsUnder('32-Memory')).toEqual([
        ['32-Memory/error-1', 'STEP_ERROR'],
        ['32-Memory/turn-failure', 'ENGINE_KNOWN_FAILURE'],
      ]);
      const rows = (await listAudits(tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes('/32-Memory/'));
      expect(rows.map((r) => r.payload)).toEqual([
        expect.objectContaining({ errorType: 'INTERNAL' }),
        expect.objectContaining({ recoverable: false }),
      ]);
      // The session's params and context, likeliest to be what was refused, are left out of their _meta.
      expect(rows[0]?.payload['_meta']).toMatchObject({
        stage: 'STEP_ERROR',
        turnId: turn.turnId,
        context: { _elided: expect.stringMatching(/refused/) },
        inputParams: { _elided: expect.stringMatching(/refused/) },
      });
    });

    it('a failed step run: its failure rows, none of the rows the refused batch carried with them', async () => {
      const failure = new Error('step failed');
      await expect(
        withHeldAudits(deps, async () => {
          await writeAudits(deps, FULL, write('33-Rules', ['STEP_ENTER', 'REFUSED']));
          await writeAudits(
            deps,
            FULL,
            write('33-Rules', ['STEP_ERROR', 'ENGINE_UNKNOWN_FAILURE'], {
              suffix: (index) => (index === 0 ? 'error-1' : 'turn-failure'),
            })
          );
          throw failure;
        })
      ).rejects.toBe(failure);
      expect(await rowsUnder('33-Rules')).toEqual([
        ['33-Rules/error-1', 'STEP_ERROR'],
        ['33-Rules/turn-failure', 'ENGINE_UNKNOWN_FAILURE'],
      ]);
    });

    it("a step's own write, outside a run: the same", async () => {
      const err = await writeAudits(deps, FULL, {
        ...write('34-Persist', ['STEP_ENTER', 'REFUSED', 'STEP_EXIT']),
        ifRefused: failureOf('34-Persist'),
      }).catch((e: unknown) => e);
      expect(err).toMatchObject(refusedRun);
      expect(await rowsUnder('34-Persist')).toEqual([
        ['34-Persist/error-1', 'STEP_ERROR'],
        ['34-Persist/turn-failure', 'ENGINE_KNOWN_FAILURE'],
      ]);
    });
  });

  describe('under an audit policy (ce_config AuditService.*)', () => {
    const policy = (changes: Partial<AuditPolicy>): AuditPolicy => ({ ...FULL, ...changes });
    const stages = ['STEP_ENTER', 'MCP_PLAN_LLM_OUTPUT', 'MCP_TOOL_ERROR', 'RULE_APPLIED', 'STEP_EXIT'];

    it('STANDARD leaves out the step frames; the kept rows keep the keys they would have had', async () => {
      await writeAudits(deps, policy({ level: 'STANDARD' }), write('10-McpTool', stages));
      expect(await rowsUnder('10-McpTool')).toEqual([
        ['10-McpTool/1', 'MCP_PLAN_LLM_OUTPUT'],
        ['10-McpTool/2', 'MCP_TOOL_ERROR'],
        ['10-McpTool/3', 'RULE_APPLIED'],
      ]);
    });

    it('ERROR_ONLY keeps stages naming an error, a failure or a rejection', async () => {
      const more = [...stages, 'SCHEMA_VALIDATION_FAILED', 'TOOL_APPROVAL_REJECTED'];
      await writeAudits(deps, policy({ level: 'ERROR_ONLY' }), write('11-McpTool', more));
      expect((await rowsUnder('11-McpTool')).map(([, stage]) => stage)).toEqual([
        'MCP_TOOL_ERROR',
        'SCHEMA_VALIDATION_FAILED',
        'TOOL_APPROVAL_REJECTED',
      ]);
    });

    it('includes and excludes stages by wildcard pattern, exclusion last', async () => {
      const mcpButErrors = policy({ includeStages: ['MCP_*', 'STEP_E*R'], excludeStages: ['*_ERROR'] });
      await writeAudits(deps, mcpButErrors, write('12-McpTool', stages));
      expect((await rowsUnder('12-McpTool')).map(([, stage]) => stage)).toEqual(['STEP_ENTER', 'MCP_PLAN_LLM_OUTPUT']);
    });

    it('filters by the intent a row was emitted under, else the session intent', async () => {
      const records = [{ ...audit('RULE_APPLIED'), meta: { intent: 'loan_apply', state: 'S' } }, audit('STEP_EXIT')];
      const onlyLoans = policy({ includeIntents: ['LOAN_*'] });
      await writeAudits(deps, onlyLoans, { ...write('13-Rules', []), session: { ...session, intent: 'FAQ' }, records });
      expect(await rowsUnder('13-Rules')).toEqual([['13-Rules/0', 'RULE_APPLIED']]);
      await writeAudits(deps, policy({ excludeIntents: ['FAQ'] }), {
        ...write('14-Rules', []),
        session: { ...session, intent: 'faq' },
        records,
      });
      expect(await rowsUnder('14-Rules')).toEqual([['14-Rules/0', 'RULE_APPLIED']]);
    });

    it('disabled or NONE: no row and no statement', async () => {
      await writeAudits(deps, policy({ enabled: false }), write('15-Rules', stages));
      await writeAudits(deps, policy({ level: 'NONE' }), write('15-Rules', stages));
      expect(await rowsUnder('15-Rules')).toEqual([]);
      expect(statements).toBe(0);
    });

    it('without persistMeta, stores each payload as the step emitted it', async () => {
      await writeAudits(deps, policy({ persistMeta: false }), write('16-Rules', ['RULE_APPLIED']));
      const stored = (await listAudits(tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes('/16-Rules/'));
      expect(stored.map((r) => r.payload)).toEqual([{ at: '16-Rules' }]);
    });

    it('drops rows past the rate limit in a window, per conversation and stage, and counts again after it', async () => {
      let now = Date.parse('2026-03-01T10:00:00.000Z');
      const clock = { now: () => new Date(now) };
      const limited = { ...deps, clock, audit: configuredAuditGate(clock) };
      const rateLimit = { ...FULL.rateLimit, enabled: true, maxEvents: 2, windowMs: 1000 };
      const three = ['RULE_APPLIED', 'RULE_APPLIED', 'RULE_APPLIED', 'STEP_EXIT'];
      await writeAudits(limited, policy({ rateLimit }), write('17-Rules', three));
      expect((await rowsUnder('17-Rules')).map(([key]) => key)).toEqual(['17-Rules/0', '17-Rules/1', '17-Rules/3']);
      now += 999;
      await writeAudits(limited, policy({ rateLimit }), write('18-Rules', ['RULE_APPLIED']));
      expect(await rowsUnder('18-Rules')).toEqual([]);
      now += 1;
      await writeAudits(limited, policy({ rateLimit }), write('19-Rules', ['RULE_APPLIED']));
      expect(await rowsUnder('19-Rules')).toEqual([['19-Rules/0', 'RULE_APPLIED']]);
      const allStages = { ...rateLimit, perStage: false };
      await writeAudits(limited, policy({ rateLimit: allStages }), write('20-Rules', ['A', 'B', 'C']));
      expect((await rowsUnder('20-Rules')).map(([, stage]) => stage)).toEqual(['A', 'B']);
    });
  });

  describe('tells the gate of each driver decision once (the worker counts loop limits and guardrail blocks)', () => {
    const heard: Json[] = [];
    const hearing = () => ({
      ...deps,
      audit: configuredAuditGate(systemClock, { decisionRecorded: (d) => heard.push(d) }),
    });
    const decision = (kind: string) => audit('TURN_DECISION', { kind, toolCode: null, reason: 'MCP_TOOL_MAX_LOOPS' });
    const withDecision = (segment: string, kind = 'LOOP_LIMIT'): AuditWrite => ({
      ...write(segment, ['STEP_ENTER']),
      records: [audit('STEP_ENTER'), decision(kind), audit('STEP_EXIT')],
    });
    const inRun = <T>(runId: string, work: () => Promise<T>): Promise<T> =>
      asyncLocalStorage.run({ info: { workflowExecution: { workflowId: turn.turnId, runId } } } as Context, work);
    beforeEach(() => heard.splice(0));

    it('when its row is first stored: a retry that rewrites it, held or not, tells nothing more', async () => {
      const gated = hearing();
      await expect(
        withHeldAudits(gated, async () => {
          await writeAudits(gated, FULL, withDecision('21-Finalize'));
          throw new Error('the run failed after its step wrote');
        })
      ).rejects.toThrow('the run failed');
      expect(heard).toEqual([{ kind: 'LOOP_LIMIT', toolCode: null, reason: 'MCP_TOOL_MAX_LOOPS' }]);
      await withHeldAudits(gated, () => writeAudits(gated, FULL, withDecision('21-Finalize')));
      await writeAudits(gated, FULL, withDecision('21-Finalize'));
      expect(heard).toHaveLength(1);
      // Only decisions: the step's other rows were first stored too.
      expect(await rowsUnder('21-Finalize')).toHaveLength(3);
    });

    it('again in another run of the turn, which decides again', async () => {
      const gated = hearing();
      await inRun('run-d', () => writeAudits(gated, FULL, withDecision('22-Finalize', 'GUARDRAIL_BLOCKED')));
      await inRun('run-d', () => writeAudits(gated, FULL, withDecision('22-Finalize', 'GUARDRAIL_BLOCKED')));
      await inRun('run-e', () => writeAudits(gated, FULL, withDecision('22-Finalize', 'GUARDRAIL_BLOCKED')));
      expect(heard.map((d) => (d as { kind: string }).kind)).toEqual(['GUARDRAIL_BLOCKED', 'GUARDRAIL_BLOCKED']);
    });

    it('left out by the policy, as its write is stored, once per write', async () => {
      const gated = hearing();
      const noDecisions = { ...FULL, excludeStages: ['TURN_DECISION'] };
      await writeAudits(gated, noDecisions, withDecision('23-Finalize'));
      expect(heard).toHaveLength(1);
      expect(await rowsUnder('23-Finalize')).toEqual([
        ['23-Finalize/0', 'STEP_ENTER'],
        ['23-Finalize/2', 'STEP_EXIT'],
      ]);
      await writeAudits(gated, { ...FULL, enabled: false }, withDecision('24-Finalize'));
      expect(heard).toHaveLength(2);
    });
  });
});
