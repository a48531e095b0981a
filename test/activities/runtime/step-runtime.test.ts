import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { sql } from 'drizzle-orm';
import { EngineError } from '../../../core/errors';
import type { StepInput } from '../../../core/turn/contracts';
import type { ActivityDeps } from '../../../activities/deps';
import { stepActivity, type StepFunction } from '../../../activities/step-runtime';
import { listAudits } from '../../../db/repositories/audit';
import { ensureConversation } from '../../../db/repositories/conversation';
import { bookkeepingDeps } from '../../support/activity-deps';
import { sessionFor, snapshotOf, turnInput } from '../../support/config-rows';
import { createTestDatabase, setAcceptingConnections, type TestDatabase } from '../../support/database';
import { runAsAttempt } from '../../../activities/runtime/attempt';
import { refuseAuditStage } from '../../support/refused-audit';

describe('step runtime (activities/step-runtime.ts)', () => {
  let tdb: TestDatabase;
  let deps: ActivityDeps;
  const pinned = snapshotOf({}, 'v-pinned');
  const latest = snapshotOf({}, 'v-latest');
  const conversationId = '00000000-0000-4000-8000-0000000000aa';

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await ensureConversation(tdb.db, conversationId);
    deps = await bookkeepingDeps(tdb.db, {
      current: async () => latest,
      get: async (version) => {
        if (version !== pinned.version) throw new EngineError('CONFIG_VERSION_UNAVAILABLE', `no ${version}`);
        return pinned;
      },
    });
  });
  afterAll(async () => tdb.drop());

  const input = (
    callKey: string,
    { configVersion = pinned.version, ...extra }: Partial<StepInput> & { configVersion?: string } = {}
  ): StepInput => ({
    turn: turnInput('hello', { conversationId, turnNumber: 3, inputParams: { from: 'request' } }),
    session: sessionFor('hello', {
      configVersion,
      conversationId,
      turnNumber: 3,
      intent: 'A',
      state: 'S1',
      inputParams: { from: 'request', schema_json: { big: 1 } },
      userInputParams: { from: 'request' },
    }),
    callKey,
    ...extra,
  });
  const rowsOf = async (prefix: string) =>
    (await listAudits(tdb.db, conversationId)).filter((a) => a.idempotencyKey.includes(`/${prefix}`));

  const moving: StepFunction = async (ctx) => {
    ctx.scope.audit('BEFORE', { version: ctx.snapshot.version });
    ctx.scope.session.state = 'S2';
    ctx.scope.audit('AFTER', {});
    return ctx.scope.output();
  };

  it('frames the step, stamps _meta, keys rows by turn/call/index, and writes a retry only once', async () => {
    const activity = stepActivity({ name: 'Moving', run: moving }, deps);
    const out = await activity(input('07-Moving'));
    if ('patch' in out) throw new Error('a v1 input asks for no StepResult');
    await activity(input('07-Moving'));
    expect(out.session.state).toBe('S2');
    expect(out.session.stepInfos['Moving']).toBe('SUCCESS');
    const rows = await rowsOf('07-Moving');
    expect(rows.map((r) => [r.stage, r.idempotencyKey])).toEqual([
      ['STEP_ENTER', `turn-${conversationId}-3/07-Moving/0`],
      ['BEFORE', `turn-${conversationId}-3/07-Moving/1`],
      ['AFTER', `turn-${conversationId}-3/07-Moving/2`],
      ['STEP_EXIT', `turn-${conversationId}-3/07-Moving/3`],
    ]);
    expect(rows[1]?.payload).toMatchObject({
      version: 'v-pinned',
      _meta: {
        stage: 'BEFORE',
        conversationId,
        turnNumber: 3,
        intent: 'A',
        state: 'S1',
        inputParams: { from: 'request', droppedSystemPromptVars: ['schema_json'] },
        userInputParams: { from: 'request' },
      },
    });
    expect(rows[2]?.payload['_meta']).toMatchObject({ state: 'S2' });
    expect(rows[3]?.payload).toMatchObject({ step: 'Moving', stepClass: 'MovingStep', outcome: 'Continue' });
    expect(typeof rows[3]?.payload['durationMs']).toBe('number');
    expect(typeof (rows[0]?.payload['_meta'] as Record<string, unknown>)['emittedAt']).toBe('string');
  });

  it('pins the current config in the first step and persists carried audits first', async () => {
    const seen: string[] = [];
    const activity = stepActivity(
      { name: 'First', run: async (ctx) => (seen.push(ctx.snapshot.version), ctx.scope.output()), pinsConfig: true },
      deps
    );
    await activity(
      input('01-First', {
        configVersion: '',
        carryAudits: [{ stage: 'CARRIED', payload: { n: 1 } }],
        carryKey: '01-First-carried-1',
      })
    );
    expect(seen).toEqual(['v-latest']);
    const carried = await rowsOf('01-First-carried-1');
    expect(carried.map((r) => r.stage)).toEqual(['CARRIED']);
    const all = await listAudits(tdb.db, conversationId);
    expect(all.findIndex((r) => r.stage === 'CARRIED')).toBeLessThan(
      all.findIndex((r) => r.idempotencyKey.endsWith('/01-First/0'))
    );
  });

  it('turns engine errors into typed ApplicationFailures, keeping audits emitted before the failure', async () => {
    const failing = stepActivity(
      {
        name: 'Failing',
        run: async (ctx) => {
          ctx.scope.audit('PARTIAL', {});
          throw new EngineError('RESPONSE_MAPPING_NOT_FOUND', 'nothing mapped', { details: { intent: 'A' } });
        },
      },
      deps
    );
    const err = await failing(input('09-Failing')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({
      type: 'RESPONSE_MAPPING_NOT_FOUND',
      nonRetryable: true,
      message: 'nothing mapped',
      // The attempt that failed closes the details: the workflow learns a tool's attempts from it.
      details: [{ intent: 'A' }, { failedAttempt: 1 }],
    });
    const rows = await rowsOf('09-Failing');
    // Not retryable: no attempt follows, so the turn fails here and its failure row closes the trail.
    expect(rows.map((r) => r.stage)).toEqual(['STEP_ENTER', 'PARTIAL', 'STEP_ERROR', 'ENGINE_KNOWN_FAILURE']);
    expect(rows[2]?.idempotencyKey).toMatch(/\/09-Failing\/error-1$/);
    expect(rows[2]?.payload).toMatchObject({
      step: 'Failing',
      errorType: 'RESPONSE_MAPPING_NOT_FOUND',
      errorMessage: 'nothing mapped',
    });
    expect(rows[3]?.idempotencyKey).toMatch(/\/09-Failing\/turn-failure$/);
    expect(rows[3]?.payload).toMatchObject({
      step: 'Failing',
      errorCode: 'RESPONSE_MAPPING_NOT_FOUND',
      message: 'nothing mapped',
      recoverable: false,
      attempt: 1,
    });
  });

  it('a retryable failure writes the turn failure row on the last attempt only; a tool call never does', async () => {
    const flaky = stepActivity({ name: 'Flaky', run: async () => Promise.reject(new Error('connection lost')) }, deps);
    const stagesAfter = async (attempt: number) => {
      await runAsAttempt(attempt, () => flaky(input('12-Flaky')), 2).catch(() => undefined);
      return (await rowsOf('12-Flaky')).filter((r) => r.stage !== 'STEP_ENTER').map((r) => r.stage);
    };
    expect(await stagesAfter(1)).toEqual(['STEP_ERROR']);
    expect(await stagesAfter(2)).toEqual(['STEP_ERROR', 'STEP_ERROR', 'ENGINE_UNKNOWN_FAILURE']);
    const [failure] = (await rowsOf('12-Flaky')).filter((r) => r.stage === 'ENGINE_UNKNOWN_FAILURE');
    expect(failure?.payload).toMatchObject({ errorCode: 'Error', recoverable: true, attempt: 2 });

    const tool = stepActivity(
      { name: 'McpToolCall', run: async () => Promise.reject(new Error('down')), failureEndsTurn: false },
      deps
    );
    await runAsAttempt(1, () => tool(input('14-Tool')), 1).catch(() => undefined);
    expect((await rowsOf('14-Tool')).map((r) => r.stage)).toEqual(['STEP_ENTER', 'STEP_ERROR']);
  });

  it('a programming error fails for good on its first attempt: one STEP_ERROR, then the turn failure row', async () => {
    const buggy = stepActivity({ name: 'Buggy', run: async () => Promise.reject(new URIError('URI malformed')) }, deps);
    const err = await runAsAttempt(1, () => buggy(input('15-Buggy')), 6).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'URIError', message: 'URI malformed', nonRetryable: true });
    const rows = await rowsOf('15-Buggy');
    expect(rows.map((r) => r.stage)).toEqual(['STEP_ENTER', 'STEP_ERROR', 'ENGINE_UNKNOWN_FAILURE']);
    expect(rows[1]?.payload).toMatchObject({ errorType: 'URIError', _errorMeta: { retryable: false, attempt: 1 } });
    expect(rows[2]?.payload).toMatchObject({ errorCode: 'URIError', recoverable: false, attempt: 1 });
  });

  it('a step whose rows PostgreSQL refuses fails for good, leaving its STEP_ERROR and the failure row only', async () => {
    await refuseAuditStage(tdb.db, 'REFUSED');
    const refused = stepActivity(
      { name: 'Refused', run: async (ctx) => (ctx.scope.audit('REFUSED', {}), ctx.scope.output()) },
      deps
    );
    const err = await refused(input('16-Refused')).catch((e: unknown) => e);
    expect(err).toMatchObject({
      type: 'INTERNAL',
      nonRetryable: true,
      details: [{ sqlState: '22023' }, { failedAttempt: 1 }],
    });
    const rows = await rowsOf('16-Refused');
    expect(rows.map((r) => [r.stage, r.idempotencyKey.replace(/^.*\//, '')])).toEqual([
      ['STEP_ERROR', 'error-1'],
      ['ENGINE_KNOWN_FAILURE', 'turn-failure'],
    ]);
    expect(rows[1]?.payload).toMatchObject({ step: 'Refused', errorCode: 'INTERNAL', recoverable: false });
  });

  it('a step whose failure rows meet a database refusing connections says so, for the workflow to write them', async () => {
    const cut = stepActivity(
      {
        name: 'Cut',
        run: async () => {
          await setAcceptingConnections(tdb.name, false);
          throw new EngineError('CONFIG_INVALID', 'bad rule');
        },
      },
      deps
    );
    const err = await cut(input('17-Cut'))
      .catch((e: unknown) => e)
      .finally(() => setAcceptingConnections(tdb.name, true));
    expect(err).toMatchObject({
      type: 'CONFIG_INVALID',
      nonRetryable: true,
      details: [{ failedAttempt: 1, failureRowsUnwritten: true }],
    });
    expect(await rowsOf('17-Cut')).toEqual([]);
  });

  it('retryable engine errors stay retryable; unknown errors are rethrown as they are', async () => {
    const retryable = stepActivity(
      {
        name: 'Flaky',
        run: async () => Promise.reject(new EngineError('LLM_CALL_FAILED', '529', { retryable: true })),
      },
      deps
    );
    expect(await retryable(input('10-Flaky')).catch((e: unknown) => e)).toMatchObject({
      type: 'LLM_CALL_FAILED',
      nonRetryable: false,
    });
    const boom = new Error('boom');
    const unknown = stepActivity({ name: 'Boom', run: async () => Promise.reject(boom) }, deps);
    expect(await unknown(input('11-Boom')).catch((e: unknown) => e)).toBe(boom);
  });

  it('a failed database statement reaches history and STEP_ERROR typed, without the statement or its values', async () => {
    const secret = 'the user typed their card number 4111111111111111';
    const leaky: StepFunction = async (ctx) => {
      // A uuid column given the user's text: drizzle's error quotes the statement and the value.
      await ctx.deps.db.execute(
        sql`SELECT conversation_id FROM ce_conversation WHERE conversation_id = ${secret}::uuid`
      );
      return ctx.scope.output();
    };
    const err = await stepActivity({ name: 'Leaky', run: leaky }, deps)(input('13-Leaky')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({
      type: 'INTERNAL',
      // A data exception (SQLSTATE class 22) fails the same way on every attempt (activities/runtime/failure.ts).
      nonRetryable: true,
      details: [{ sqlState: '22P02' }, { failedAttempt: 1 }],
    });
    const message = (err as ApplicationFailure).message;
    expect(message).toMatch(
      /^A database statement failed: invalid input syntax for type uuid: "…" \(SQLSTATE 22P02\)$/
    );
    expect(message).not.toContain('SELECT');
    expect(message).not.toContain('card number');
    expect((err as ApplicationFailure).cause).toBeUndefined();
    const [row] = (await rowsOf('13-Leaky')).filter((r) => r.stage === 'STEP_ERROR');
    expect(row?.payload).toMatchObject({ errorType: 'INTERNAL', errorMessage: message });
    expect(JSON.stringify(row?.payload)).not.toContain('card number');
  });

  it('a step cancelled by Temporal ends cancelled, whatever its cut I/O threw, and writes no row', async () => {
    const cut: StepFunction = async (ctx) => {
      ctx.scope.audit('BEFORE', {});
      const signal = Context.current().cancellationSignal;
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      throw new EngineError('TOOL_EXECUTION_FAILED', 'socket hang up');
    };
    const env = new MockActivityEnvironment();
    const attempt = env.run(stepActivity({ name: 'Cut', run: cut }, deps), input('12-Cut'));
    setTimeout(() => env.cancel('WORKER_SHUTDOWN'), 50);
    // The worker reports a CancelledFailure as the attempt cancelled (WorkerShutdown on a stopping worker).
    const err = await attempt.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledFailure);
    expect(err).toMatchObject({ message: 'WORKER_SHUTDOWN' });
    expect(await rowsOf('12-Cut')).toEqual([]);
  });

  it('an unavailable pinned version fails the step before it runs', async () => {
    let ran = false;
    const activity = stepActivity({ name: 'Late', run: async (ctx) => ((ran = true), ctx.scope.output()) }, deps);
    const err = await activity(input('12-Late', { configVersion: 'v-gone' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'CONFIG_VERSION_UNAVAILABLE' });
    expect(ran).toBe(false);
  });
});
