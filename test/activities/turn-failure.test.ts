import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../activities/deps';
import { createStepRuns, type RunStepActivities } from '../../activities/pipeline/step-runs';
import type { StepResult } from '../../core/turn/contracts';
import type { RunStepName } from '../../core/turn/step-runs';
import { stepActivity } from '../../activities/step-runtime';
import { createTurnFailure } from '../../activities/turn-failure';
import { EngineError } from '../../core/errors';
import type { TurnFailureFacts } from '../../core/turn/activities';
import { STEP_TABLE } from '../../core/turn/steps';
import { ApplicationFailure } from '@temporalio/common';
import { listAudits } from '../../db/repositories/audit';
import { ensureConversation } from '../../db/repositories/conversation';
import { bookkeepingDeps } from '../support/activity-deps';
import { sessionFor, snapshotOf, turnInput } from '../support/config-rows';
import { createTestDatabase, setAcceptingConnections, type TestDatabase } from '../support/database';

describe('TurnFailure (activities/turn-failure.ts): the failure row only the workflow saw', () => {
  let tdb: TestDatabase;
  let deps: ActivityDeps;
  const snapshot = snapshotOf({}, 'v1');
  let conversation = 0;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    deps = await bookkeepingDeps(tdb.db, { current: async () => snapshot, get: async () => snapshot });
  });
  afterAll(async () => tdb.drop());

  async function newTurn() {
    conversation += 1;
    const conversationId = `00000000-0000-4000-8000-${String(conversation).padStart(12, '0')}`;
    await ensureConversation(tdb.db, conversationId);
    const turn = turnInput('hello', { conversationId, turnNumber: 2 });
    const session = sessionFor('hello', { conversationId, turnNumber: 2, configVersion: 'v1', intent: 'LOAN' });
    return { turn, session, rows: async () => listAudits(tdb.db, conversationId) };
  }

  const timeout: TurnFailureFacts = {
    step: 'PersistConversation',
    type: 'TIMEOUT',
    message: 'activity StartToClose timeout',
    nonRetryable: false,
    attempt: null,
  };

  it('writes a known failure row, once, as the turn’s last row', async () => {
    const { turn, session, rows } = await newTurn();
    await createTurnFailure(deps)({ turn, session, failure: timeout });
    await createTurnFailure(deps)({ turn, session, failure: timeout });
    const written = await rows();
    expect(written.map((r) => r.stage)).toEqual(['ENGINE_KNOWN_FAILURE']);
    expect(written[0]?.payload).toMatchObject({
      step: 'PersistConversation',
      stepClass: 'PersistConversationStep',
      errorCode: 'TIMEOUT',
      recoverable: true,
      _meta: { intent: 'LOAN', turnNumber: 2 },
    });
    expect(written[0]?.payload).not.toHaveProperty('attempt');
  });

  it('an operator’s fail is known and not recoverable; an unexpected error’s class name is unknown', async () => {
    const held = await newTurn();
    const failure = { step: 'McpToolHold', type: 'TOOL_HOLD_FAILED', message: 'down', nonRetryable: true, attempt: 2 };
    await createTurnFailure(deps)({ turn: held.turn, session: held.session, failure });
    expect((await held.rows())[0]).toMatchObject({
      stage: 'ENGINE_KNOWN_FAILURE',
      payload: { errorCode: 'TOOL_HOLD_FAILED', recoverable: false, attempt: 2 },
    });
    const odd = await newTurn();
    const typeError = { ...timeout, type: 'TypeError', message: 'x is not a function' };
    await createTurnFailure(deps)({ turn: odd.turn, session: odd.session, failure: typeError });
    expect((await odd.rows()).map((r) => r.stage)).toEqual(['ENGINE_UNKNOWN_FAILURE']);
  });

  it('writes nothing when the failing step already wrote the turn’s failure row', async () => {
    const { turn, session, rows } = await newTurn();
    const failing = stepActivity(
      { name: 'Rules', run: async () => Promise.reject(new EngineError('CONFIG_INVALID', 'bad rule')) },
      deps
    );
    await failing({ turn, session, callKey: '12-Rules' }).catch(() => undefined);
    await createTurnFailure(deps)({ turn, session, failure: { ...timeout, type: 'CONFIG_INVALID' } });
    const failures = (await rows()).filter((r) => r.stage.startsWith('ENGINE_'));
    expect(failures).toHaveLength(1);
    expect(failures[0]?.payload).toMatchObject({ step: 'Rules', errorCode: 'CONFIG_INVALID', attempt: 1 });
  });

  describe('a step run Temporal gave up on is named by the step it hung in', () => {
    const summary = { outcome: 'Continue' as const, intent: 'LOAN', state: 'S', changed: [] };
    /** Steps that answer at once, except `hangs`, which answers only once `release` is called. */
    function stepsHangingIn(hangs: RunStepName) {
      let release: () => void = () => undefined;
      let reach: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<void>((resolve) => (reach = resolve));
      const steps = new Proxy({} as RunStepActivities, {
        get: (_, name: RunStepName) => async (): Promise<StepResult> => {
          if (name === hangs) {
            reach();
            await released;
          }
          return { patch: {}, summary };
        },
      });
      return { steps, reached, release };
    }
    const inRun = (runId: string) =>
      new MockActivityEnvironment({ isLocal: true, workflowExecution: { workflowId: 'turn-x', runId } });
    const holdAudits = <T>(work: () => Promise<T>) => work();

    async function runThatHangs(runId: string, abandon: boolean) {
      const { turn, session, rows } = await newTurn();
      const { steps, reached, release } = stepsHangingIn('Guardrail');
      const env = inRun(runId);
      const input = {
        turn,
        session,
        steps: ['PolicyEnforcement', 'Guardrail', 'Memory'].map((name, i) => ({
          name: name as RunStepName,
          callKey: `0${i}-${name}`,
        })),
      };
      const run = env.run(createStepRuns(steps, { clock: deps.clock, holdAudits }).LocalSteps, input);
      await reached;
      if (abandon) env.cancel('TIMED_OUT');
      // The abandoned attempt goes on to Memory, as a cancelled local activity does: it still names Guardrail.
      release();
      await run.catch(() => undefined);
      const failure = { ...timeout, step: 'LocalSteps', message: 'activity StartToClose timeout' };
      await inRun(runId).run(createTurnFailure(deps), { turn, session, failure });
      return (await rows()).find((r) => r.stage === 'ENGINE_KNOWN_FAILURE')?.payload;
    }

    it('an abandoned attempt leaves its step for the failure row, which takes it once', async () => {
      expect(await runThatHangs('run-abandoned', true)).toMatchObject({
        step: 'Guardrail',
        stepClass: 'GuardrailStep',
        errorCode: 'TIMEOUT',
        message: 'activity StartToClose timeout (in LocalSteps)',
      });
    });

    it('a run that ended leaves nothing: the row names the run, as one from another worker does', async () => {
      expect(await runThatHangs('run-ended', false)).toMatchObject({ step: 'LocalSteps', errorCode: 'TIMEOUT' });
    });
  });

  describe('its attempts: retried while the database is unreachable, any other failure for its attempts only', () => {
    const attempt = (n: number) => new MockActivityEnvironment({ activityType: 'TurnFailure', attempt: n });
    const { maximumAttempts } = STEP_TABLE.TurnFailure.retry;

    it('an attempt past maximumAttempts that meets a database refusing sessions fails retryably', async () => {
      const { turn, session, rows } = await newTurn();
      // No wait within the attempt: its failure is what the policy (no attempt limit) retries.
      const window = jest.replaceProperty(STEP_TABLE.TurnFailure.retry, 'databaseOutageMs', 0);
      await setAcceptingConnections(tdb.name, false);
      const err = await attempt(maximumAttempts * 4)
        .run(createTurnFailure(deps), { turn, session, failure: timeout })
        .catch((e: unknown) => e)
        .finally(async () => {
          window.restore();
          await setAcceptingConnections(tdb.name, true);
        });
      expect(err).toBeInstanceOf(Error);
      expect((err as ApplicationFailure).nonRetryable).not.toBe(true);
      expect(await rows()).toEqual([]);
    });

    it('any other failure is retried until the last of maximumAttempts, which fails for good', async () => {
      const { turn, session, rows } = await newTurn();
      const policy = () => {
        throw new TypeError('no policy');
      };
      const broken = { ...deps, audit: { ...deps.audit, policy } };
      const run = (n: number) =>
        attempt(n)
          .run(createTurnFailure(broken as unknown as ActivityDeps), { turn, session, failure: timeout })
          .catch((e: unknown) => e);
      const early = await run(maximumAttempts - 1);
      expect(early).toBeInstanceOf(TypeError);
      const last = await run(maximumAttempts);
      expect(last).toBeInstanceOf(ApplicationFailure);
      expect(last).toMatchObject({ type: 'TypeError', message: 'no policy', nonRetryable: true });
      expect(await rows()).toEqual([]);
    });
  });
});
