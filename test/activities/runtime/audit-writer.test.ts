/** Writing a step's audit rows: rewrites per key segment, held writes, runs of a turn, refused batches. */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { asyncLocalStorage, type Context } from '@temporalio/activity';
import { withHeldAudits, writeAudits } from '../../../activities/runtime/audit-writer';
import { audit } from '../../../core/audit';
import { FULL_AUDIT_POLICY as FULL } from '../../../core/audit/policy';
import { listAudits } from '../../../db/repositories/audit';
import { setAcceptingConnections } from '../../support/database';
import { refuseAuditStage } from '../../support/refused-audit';
import { useAuditWriterFixture } from '../../support/audit-writer-fixture';
import { turnInput } from '../../support/config-rows';

describe('audit writer (activities/runtime/audit-writer.ts)', () => {
  const fx = useAuditWriterFixture();
  const { conversationId, turn, write, rowsUnder } = fx;

  it('replaces what an earlier attempt left under the same key segment, and keeps its error rows', async () => {
    await writeAudits(fx.deps, FULL, write('01-Rules', ['STEP_ENTER', 'RULE_APPLIED', 'STEP_EXIT']));
    await writeAudits(fx.deps, FULL, write('01-Rules', ['STEP_ERROR'], { suffix: () => 'error-1' }));
    await writeAudits(fx.deps, FULL, write('01-Rules', ['STEP_ENTER', 'STEP_EXIT']));
    expect(await rowsUnder('01-Rules')).toEqual([
      ['01-Rules/0', 'STEP_ENTER'],
      ['01-Rules/1', 'STEP_EXIT'],
      ['01-Rules/error-1', 'STEP_ERROR'],
    ]);
    expect(fx.statements).toBe(3);
  });

  it('leaves a similar but different segment alone', async () => {
    await writeAudits(fx.deps, FULL, write('02-Memory', ['STEP_ENTER', 'STEP_EXIT']));
    await writeAudits(fx.deps, FULL, write('02-Memory-carried', ['CARRIED']));
    await writeAudits(fx.deps, FULL, write('02-Memory', ['STEP_ENTER']));
    expect(await rowsUnder('02-Memory')).toEqual([['02-Memory/0', 'STEP_ENTER']]);
    expect(await rowsUnder('02-Memory-carried')).toEqual([['02-Memory-carried/0', 'CARRIED']]);
  });

  it('holds the writes of a step run and writes them in one statement when the run ends', async () => {
    const result = await withHeldAudits(fx.deps, async () => {
      await writeAudits(fx.deps, FULL, write('03-Guardrail', ['STEP_ENTER', 'STEP_EXIT']));
      await writeAudits(fx.deps, FULL, write('04-Memory', ['STEP_ENTER', 'MEMORY_UPDATED', 'STEP_EXIT']));
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
    expect(fx.statements).toBe(1);
  });

  it('writes what a failed run held, then rethrows its failure', async () => {
    const failure = new Error('step failed');
    await expect(
      withHeldAudits(fx.deps, async () => {
        await writeAudits(fx.deps, FULL, write('05-Rules', ['STEP_ENTER']));
        await writeAudits(fx.deps, FULL, write('05-Rules', ['STEP_ERROR'], { suffix: () => 'error-1' }));
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
      withHeldAudits(fx.deps, async () => {
        await writeAudits(fx.deps, FULL, write('06-Late', ['STEP_ENTER']));
        await stuck;
        await writeAudits(fx.deps, FULL, write('06-Late', ['STEP_ENTER', 'STEP_EXIT']));
        return 'too late';
      })
    );
    // A local activity that outlives its start-to-close is cancelled (reason TIMED_OUT), not stopped.
    env.cancel('TIMED_OUT');
    resume();
    await expect(attempt).resolves.toBe('too late');
    await env.run(() => writeAudits(fx.deps, FULL, write('07-Late', ['STEP_ERROR'])));
    expect(await rowsUnder('06-Late')).toEqual([]);
    expect(await rowsUnder('07-Late')).toEqual([]);
    expect(fx.statements).toBe(0);
  });

  describe('under Temporal, where each run of a turn has rows of its own', () => {
    /** Runs `work` as an activity of the given run of the turn (the worker sets this context). */
    const inRun = <T>(runId: string, work: () => Promise<T>): Promise<T> => {
      const context = { info: { workflowExecution: { workflowId: turn.turnId, runId } } } as unknown as Context;
      return asyncLocalStorage.run(context, work);
    };
    const rowsOf = async (segment: string) =>
      (await listAudits(fx.tdb.db, conversationId)).filter((r) => r.idempotencyKey.includes(`/${segment}/`));

    it("a second run appends its rows after the first run's and leaves those as they were", async () => {
      await inRun('run-a', () =>
        writeAudits(fx.deps, FULL, write('12-Schema', ['STEP_ENTER', 'LLM_INPUT', 'STEP_EXIT']))
      );
      const first = await rowsOf('12-Schema');
      await inRun('run-b', () => writeAudits(fx.deps, FULL, write('12-Schema', ['STEP_ENTER', 'STEP_EXIT'])));
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
        await writeAudits(fx.deps, FULL, write('13-Plan', ['STEP_ENTER', 'LLM_INPUT', 'STEP_EXIT']));
        await writeAudits(fx.deps, FULL, write('13-Plan', ['STEP_ERROR'], { suffix: () => 'error-1' }));
      });
      const firstAttempt = await rowsOf('13-Plan');
      await inRun('run-c', () => writeAudits(fx.deps, FULL, write('13-Plan', ['STEP_ENTER', 'STEP_EXIT'])));
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

  it('fails the run when its held rows cannot be written', async () => {
    const elsewhere = turnInput('hello', { conversationId: '00000000-0000-4000-8000-0000000000ff', turnNumber: 1 });
    // No such conversation: the foreign key refuses the rows.
    await expect(
      withHeldAudits(fx.deps, () =>
        writeAudits(fx.deps, FULL, { ...write('06-Rules', ['STEP_ENTER']), turn: elsewhere })
      )
    ).rejects.toThrow(/foreign key/);
  });

  describe('when the database refuses connections, an attempt says its failure rows are unwritten', () => {
    const stepFailure = (failedAttempt: number) =>
      ApplicationFailure.create({
        type: 'INTERNAL',
        message: 'down',
        details: [{ failedAttempt }, { ran: [], failedStep: { name: 'Rules', callKey: '35-Rules' } }],
      });
    const failureRows = (keySegment: string) =>
      write(keySegment, ['STEP_ERROR', 'ENGINE_KNOWN_FAILURE'], {
        suffix: (index) => (index === 0 ? 'error-2' : 'turn-failure'),
      });

    it("a failed run: its failure, the run's progress still its last detail", async () => {
      const err = await withHeldAudits(fx.deps, async () => {
        await writeAudits(fx.deps, FULL, failureRows('35-Rules'));
        await setAcceptingConnections(fx.tdb.name, false);
        throw stepFailure(2);
      })
        .catch((e: unknown) => e)
        .finally(() => setAcceptingConnections(fx.tdb.name, true));
      expect(err).toMatchObject({
        type: 'INTERNAL',
        details: [{ failedAttempt: 2, failureRowsUnwritten: true }, { failedStep: { name: 'Rules' } }],
      });
      expect(await rowsUnder('35-Rules')).toEqual([]);
    });

    it('a failed run whose rows are stored: its failure unchanged', async () => {
      const failure = stepFailure(2);
      const err = await withHeldAudits(fx.deps, async () => {
        await writeAudits(fx.deps, FULL, failureRows('36-Rules'));
        throw failure;
      }).catch((e: unknown) => e);
      expect(err).toBe(failure);
    });

    it("a step's write that fails its attempt: the failure it fails with", async () => {
      await setAcceptingConnections(fx.tdb.name, false);
      const err = await writeAudits(fx.deps, FULL, write('37-Persist', ['STEP_ENTER', 'STEP_EXIT']))
        .catch((e: unknown) => e)
        .finally(() => setAcceptingConnections(fx.tdb.name, true));
      expect(err).toMatchObject({ type: 'INTERNAL', details: [{ sqlState: '55000' }, { failureRowsUnwritten: true }] });
    });
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
    beforeAll(async () => refuseAuditStage(fx.tdb.db, 'REFUSED'));

    it("a step run's batch: none of its rows, then its last step's STEP_ERROR and the turn's failure row", async () => {
      const err = await withHeldAudits(fx.deps, async () => {
        await writeAudits(fx.deps, FULL, {
          ...write('31-Rules', ['STEP_ENTER', 'STEP_EXIT']),
          ifRefused: failureOf('31-Rules'),
        });
        await writeAudits(fx.deps, FULL, {
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
      const rows = (await listAudits(fx.tdb.db, conversationId)).filter((r) =>
        r.idempotencyKey.includes('/32-Memory/')
      );
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
        withHeldAudits(fx.deps, async () => {
          await writeAudits(fx.deps, FULL, write('33-Rules', ['STEP_ENTER', 'REFUSED']));
          await writeAudits(
            fx.deps,
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
      const err = await writeAudits(fx.deps, FULL, {
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
});
