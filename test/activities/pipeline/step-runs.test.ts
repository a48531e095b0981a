import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createStepRuns, type RunStepActivities } from '../../../activities/pipeline/step-runs';
import { attemptsLocally } from '../../../activities/runtime/local-attempt';
import { ErrorType } from '../../../core/errors';
import type { StepInput, StepResult } from '../../../core/turn/contracts';
import type { RunStepName, StepRunInput } from '../../../core/turn/step-runs';
import { blankSession } from '../../../core/turn/session-factory';

const turn = {
  conversationId: 'c1',
  turnNumber: 1,
  turnId: 'turn-c1-1',
  message: 'hi',
  inputParams: {},
  reset: false,
  requestContext: {},
  idempotencyKey: null,
  receivedAt: '2026-11-25T00:00:00.000Z',
} as StepRunInput['turn'];

const summary = { outcome: 'Continue' as const, intent: 'FAQ', state: 'IDLE', changed: ['state'] };
/** Whether a step was called while the run held its audit writes (activities/runtime/audit-writer.ts). */
let holding = false;
const clock = {
  clock: { now: () => new Date('2026-11-25T00:00:00.000Z') },
  holdAudits: async <T>(work: () => Promise<T>): Promise<T> => {
    holding = true;
    try {
      return await work();
    } finally {
      holding = false;
    }
  },
};

type Behaviour = (input: StepInput) => Promise<StepResult>;

/** Step activities that record what they were called with and answer as `behaviours` say (default: state = their name). */
function fakeSteps(behaviours: Partial<Record<RunStepName, Behaviour>>, calls: StepInput[]): RunStepActivities {
  return new Proxy({} as RunStepActivities, {
    get: (_, name: RunStepName) => async (input: StepInput) => {
      if (!holding) throw new Error(`${name} ran outside the run's held audit writes`);
      calls.push(input);
      const behave = behaviours[name];
      return behave ? behave(input) : { patch: { set: { state: name } }, summary };
    },
  });
}

function runInput(names: RunStepName[], extra: Partial<StepRunInput> = {}): StepRunInput {
  const steps = names.map((name, i) => ({ name, callKey: `0${i + 1}-${name}` }));
  return { turn, session: { ...blankSession(turn), stepInfos: {} }, steps, ...extra };
}

const handOver = () =>
  Promise.reject(
    ApplicationFailure.create({
      type: ErrorType.NeedsRegularActivity,
      message: 'Rules calls the LLM (X)',
      nonRetryable: true,
    })
  );

const createLocalSteps = (steps: RunStepActivities, deps: typeof clock) => createStepRuns(steps, deps).LocalSteps;

describe('the LocalSteps activity (activities/pipeline/step-runs.ts)', () => {
  it('runs the steps in order, each on the session the previous one left, under its own call key', async () => {
    const calls: StepInput[] = [];
    const run = createLocalSteps(fakeSteps({}, calls), clock);
    const out = await run(runInput(['Guardrail', 'ResetResolvedIntent', 'FallbackIntentState']));
    expect(out.handedOver).toBeNull();
    expect(out.ran.map((s) => [s.name, s.callKey, s.result.patch])).toEqual([
      ['Guardrail', '01-Guardrail', { set: { state: 'Guardrail' } }],
      ['ResetResolvedIntent', '02-ResetResolvedIntent', { set: { state: 'ResetResolvedIntent' } }],
      ['FallbackIntentState', '03-FallbackIntentState', { set: { state: 'FallbackIntentState' } }],
    ]);
    expect(calls.map((c) => [c.callKey, c.session.state, c.reply])).toEqual([
      ['01-Guardrail', 'UNKNOWN', 'patch'],
      ['02-ResetResolvedIntent', 'Guardrail', 'patch'],
      ['03-FallbackIntentState', 'ResetResolvedIntent', 'patch'],
    ]);
  });

  it('hands the first driver decisions to the first step only', async () => {
    const calls: StepInput[] = [];
    const decisions = [{ seq: 1, decision: { kind: 'MCP_SKIPPED' as const, toolCode: null, reason: 'NO_TOOLS' } }];
    await createLocalSteps(fakeSteps({}, calls), clock)(runInput(['Rules', 'Memory'], { decisions }));
    expect(calls.map((c) => c.decisions)).toEqual([decisions, undefined]);
  });

  it('hands rows decided in workflow code to the first step only, under their own key', async () => {
    const calls: StepInput[] = [];
    const carryAudits = [{ stage: 'MCP_GUARDRAIL_BLOCKED', payload: { toolCode: 't' } }];
    const carried = { carryAudits, carryKey: '18-McpTool-carried-1' };
    await createLocalSteps(fakeSteps({}, calls), clock)(runInput(['McpFinalize', 'Rules', 'Memory'], carried));
    expect(calls.map((c) => [c.callKey, c.carryAudits, c.carryKey])).toEqual([
      ['01-McpFinalize', carryAudits, '18-McpTool-carried-1'],
      ['02-Rules', undefined, undefined],
      ['03-Memory', undefined, undefined],
    ]);
  });

  it("hands the turn's step timings on, each step's added, and keeps a step's duration in its entry only", async () => {
    const calls: StepInput[] = [];
    const timed = (durationMs: number) => async () => ({ patch: {}, summary, durationMs });
    const steps = fakeSteps({ PersistConversation: timed(7), PipelineEnd: timed(1) }, calls);
    const stepTimings = [{ step: 'DialogueAct', durationMs: 12 }];
    const out = await createStepRuns(steps, clock).RegularSteps(
      runInput(['PersistConversation', 'PipelineEnd'], { stepTimings })
    );
    expect(calls.map((c) => c.stepTimings)).toEqual([
      stepTimings,
      [...stepTimings, { step: 'PersistConversation', durationMs: 7 }],
    ]);
    expect(out.ran.map((e) => [e.name, e.durationMs, 'durationMs' in e.result])).toEqual([
      ['PersistConversation', 7, false],
      ['PipelineEnd', 1, false],
    ]);
  });

  it('hands no timings to the steps of a run that carries none', async () => {
    const calls: StepInput[] = [];
    await createLocalSteps(fakeSteps({}, calls), clock)(runInput(['Rules', 'Memory']));
    expect(calls.map((c) => 'stepTimings' in c)).toEqual([false, false]);
  });

  it('ends after a step that stops the turn', async () => {
    const calls: StepInput[] = [];
    const stop = { reason: 'POLICY_BLOCK' as const, payload: { type: 'TEXT' as const, value: 'blocked' } };
    const steps = fakeSteps({ PolicyEnforcement: async () => ({ patch: {}, summary, stop }) }, calls);
    const out = await createLocalSteps(steps, clock)(runInput(['AuditUserInput', 'PolicyEnforcement', 'DialogueAct']));
    expect(out.ran.map((s) => s.name)).toEqual(['AuditUserInput', 'PolicyEnforcement']);
    expect(out.ran[1]?.result.stop).toEqual(stop);
    expect(calls).toHaveLength(2);
  });

  it('stops before a step that must run as a regular activity, naming it and why', async () => {
    const calls: StepInput[] = [];
    const out = await createLocalSteps(
      fakeSteps({ Rules: handOver }, calls),
      clock
    )(runInput(['McpFinalize', 'Rules', 'Memory']));
    expect(out.ran.map((s) => s.name)).toEqual(['McpFinalize']);
    expect(out.handedOver).toEqual({ name: 'Rules', callKey: '02-Rules', reason: 'Rules calls the LLM (X)' });
    expect(calls).toHaveLength(2);
  });

  it('fails the whole run on any other failure, retryable as the step was, naming the step', async () => {
    const failing = fakeSteps({ Memory: () => Promise.reject(new Error('connection reset')) }, []);
    const err = await createLocalSteps(failing, clock)(runInput(['Rules', 'Memory'])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    const failure = err as ApplicationFailure;
    expect([failure.type, failure.message, failure.nonRetryable]).toEqual(['Error', 'connection reset', false]);
    expect(failure.details?.at(-1)).toMatchObject({
      ran: [{ name: 'Rules', callKey: '01-Rules' }],
      failedStep: { name: 'Memory', callKey: '02-Memory' },
      failedAfterMs: expect.any(Number),
    });
  });

  it('fails the run for good on a programming error: another attempt would fail the same way', async () => {
    const buggy = fakeSteps({ Memory: () => Promise.reject(new TypeError('Cannot read properties of undefined')) }, []);
    const err = (await createLocalSteps(
      buggy,
      clock
    )(runInput(['Rules', 'Memory'])).catch((e: unknown) => e)) as ApplicationFailure;
    expect([err.type, err.nonRetryable]).toEqual(['TypeError', true]);
    expect(err.details?.at(-1)).toMatchObject({ failedStep: { name: 'Memory' } });
  });

  it("keeps a step failure's type, retryability and details", async () => {
    const missing = ApplicationFailure.create({
      type: 'RESPONSE_MAPPING_NOT_FOUND',
      message: 'no ce_response',
      nonRetryable: true,
      details: [{ intent: 'X' }],
    });
    const failing = fakeSteps({ Rules: () => Promise.reject(missing) }, []);
    const err = (await createLocalSteps(
      failing,
      clock
    )(runInput(['Rules', 'Memory'])).catch((e: unknown) => e)) as ApplicationFailure;
    expect([err.type, err.nonRetryable, err.details?.[0]]).toEqual([
      'RESPONSE_MAPPING_NOT_FOUND',
      true,
      { intent: 'X' },
    ]);
    expect(err.details?.at(-1)).toMatchObject({ ran: [], failedStep: { name: 'Rules' } });
  });

  it('refuses a step that answers with a whole session', async () => {
    const whole = fakeSteps({ Rules: async (input) => ({ session: input.session, audits: [] }) as never }, []);
    await expect(createLocalSteps(whole, clock)(runInput(['Rules', 'Memory']))).rejects.toThrow(/whole session/);
  });
});

describe('the RegularSteps activity (activities/pipeline/step-runs.ts)', () => {
  it('lets its lead reach the LLM and attempts the steps after it as a local attempt would', async () => {
    const seen: [string, boolean][] = [];
    const noting = async (input: StepInput): Promise<StepResult> => {
      seen.push([input.callKey, attemptsLocally()]);
      return { patch: {}, summary };
    };
    const steps = fakeSteps({ DialogueAct: noting, InteractionPolicy: noting, Guardrail: noting }, []);
    const out = await createStepRuns(steps, clock).RegularSteps(
      runInput(['DialogueAct', 'InteractionPolicy', 'Guardrail'])
    );
    expect(out.ran.map((s) => s.name)).toEqual(['DialogueAct', 'InteractionPolicy', 'Guardrail']);
    expect(seen).toEqual([
      ['01-DialogueAct', false],
      ['02-InteractionPolicy', true],
      ['03-Guardrail', true],
    ]);
  });

  it('hands a later step that reaches the LLM over to an activity of its own', async () => {
    const calls: StepInput[] = [];
    const steps = fakeSteps({ Rules: handOver }, calls);
    const out = await createStepRuns(steps, clock).RegularSteps(runInput(['ResponseResolution', 'Rules', 'Memory']));
    expect(out.ran.map((s) => s.name)).toEqual(['ResponseResolution']);
    expect(out.handedOver).toEqual({ name: 'Rules', callKey: '02-Rules', reason: 'Rules calls the LLM (X)' });
  });

  it('fails as its lead failed, naming it', async () => {
    const failing = fakeSteps({ PersistConversation: () => Promise.reject(new Error('conflict')) }, []);
    const err = (await createStepRuns(failing, clock)
      .RegularSteps(runInput(['PersistConversation', 'PipelineEnd']))
      .catch((e: unknown) => e)) as ApplicationFailure;
    expect([err.type, err.message, err.nonRetryable]).toEqual(['Error', 'conflict', false]);
    expect(err.details?.at(-1)).toMatchObject({ ran: [], failedStep: { name: 'PersistConversation' } });
  });

  /** A step whose I/O ends on the activity's cancellation, failing as the cut I/O did (`thrown`), not as cancelled. */
  const cutOnCancel = (thrown: () => Error) => async (): Promise<StepResult> => {
    const signal = Context.current().cancellationSignal;
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    throw thrown();
  };

  it.each([
    ['its lead', 'PersistConversation', () => new CancelledFailure('WORKER_SHUTDOWN')],
    ['a later step, whose cut I/O failed otherwise', 'PipelineEnd', () => new Error('socket hang up')],
  ])('ends cancelled when its worker stops during %s, as a single step does', async (_, name, thrown) => {
    const steps = fakeSteps({ [name]: cutOnCancel(thrown) }, []);
    const env = new MockActivityEnvironment();
    const run = env.run(createStepRuns(steps, clock).RegularSteps, runInput(['PersistConversation', 'PipelineEnd']));
    setTimeout(() => env.cancel('WORKER_SHUTDOWN'), 50);
    const err = await run.catch((e: unknown) => e);
    // The worker reports a CancelledFailure as the attempt cancelled (WorkerShutdown on a stopping worker, retried at
    // once); any other error as the run's failure.
    expect(err).toBeInstanceOf(CancelledFailure);
    expect(err).toMatchObject({ message: 'WORKER_SHUTDOWN' });
  });

  it('ends after an McpPrepare that starts the planner loop', async () => {
    const plan = { run: true, skipReason: null, maxLoops: 5, tools: [], nextToolGuard: {} };
    const prepare = async (): Promise<StepResult> => ({ patch: {}, summary, plan }) as StepResult;
    const steps = fakeSteps({ McpPrepare: prepare }, []);
    const out = await createStepRuns(steps, clock).LocalSteps(runInput(['ToolOrchestration', 'McpPrepare', 'Rules']));
    expect(out.ran.map((s) => s.name)).toEqual(['ToolOrchestration', 'McpPrepare']);
  });
});
