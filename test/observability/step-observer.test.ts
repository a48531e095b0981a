import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityExecuteInput } from '@temporalio/worker';
import { SpanStatusCode } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ApplicationFailure } from '@temporalio/common';
import { EngineError, ErrorType } from '../../core/errors';
import { stepObserver } from '../../observability/activity-interceptor';
import { createLogger, silentLogger, type Logger } from '../../observability/logger';
import { countDecision, createWorkerMetrics, type WorkerMetrics } from '../../observability/metrics';
import { inSpan, setupTracing, type Tracing } from '../../observability/tracing';
import { captureLog } from '../support/log-capture';
import { parseMetrics, sumOf } from '../support/prometheus-text';

/** Runs one activity attempt through the step observer, as the worker's interceptor chain does. */
async function runStep(
  metrics: WorkerMetrics,
  activityType: string,
  arg: unknown,
  result: () => Promise<unknown>,
  logger: Logger = silentLogger(),
  withoutFailureText = false
) {
  const ctx = { info: { activityType, attempt: 1, workflowExecution: { workflowId: 'turn-c-1', runId: 'r' } } };
  const observer = stepObserver({ logger, metrics, withoutFailureText })(ctx as unknown as ActivityContext);
  const input: ActivityExecuteInput = { args: [arg], headers: {} };
  return observer.inbound?.execute?.(input, result);
}

const turn = { conversationId: 'c', turnNumber: 1 };
const samples = async (metrics: WorkerMetrics) => parseMetrics(await metrics.registry.metrics());

describe('the step observer (activity interceptor) counters', () => {
  it('counts loop-limit stops and guardrail blocks from the decisions recorded (countDecision), folding odd reasons', async () => {
    const metrics = createWorkerMetrics();
    countDecision(metrics, { kind: 'LOOP_LIMIT', toolCode: null, reason: 'MCP_TOOL_MAX_LOOPS', limit: 5 });
    countDecision(metrics, { kind: 'GUARDRAIL_BLOCKED', toolCode: 'x', reason: 'POLICY_RESTRICTED_OPERATION' });
    countDecision(metrics, { kind: 'GUARDRAIL_BLOCKED', toolCode: 'x', reason: 'drop table "users"; --' });
    countDecision(metrics, { kind: 'TOOL_FAILED', toolCode: 'x', reason: 'TIMEOUT' });
    // The interceptor counts none: V1's RecordTurnDecision records its decision through the audit writer too.
    await runStep(metrics, 'RecordTurnDecision', { turn, decision: { kind: 'LOOP_LIMIT' } }, async () => undefined);
    const m = await samples(metrics);
    expect(sumOf(m, 'convengine_loop_limit_stops_total')).toBe(1);
    expect(sumOf(m, 'convengine_guardrail_blocks_total', { reason: 'POLICY_RESTRICTED_OPERATION' })).toBe(1);
    expect(sumOf(m, 'convengine_guardrail_blocks_total', { reason: 'OTHER' })).toBe(1);
    expect(sumOf(m, 'convengine_guardrail_blocks_total')).toBe(2);
  });

  it('counts a tool call refused by the SQL guardrail as blocked, by the guardrail code, and rethrows it', async () => {
    const metrics = createWorkerMetrics();
    const refused = new EngineError(ErrorType.SqlGuardrailRejected, 'postgres.query: not read-only', {
      details: { code: 'NOT_READ_ONLY' },
    });
    const call = { turn, call: { toolCode: 'postgres.query' } };
    await expect(runStep(metrics, 'McpToolCall', call, () => Promise.reject(refused))).rejects.toBe(refused);
    await expect(
      runStep(metrics, 'McpToolCall', call, () => Promise.reject(new Error('socket hang up')))
    ).rejects.toThrow('socket hang up');
    await runStep(metrics, 'McpToolCall', call, async () => ({ session: {} }));
    // A DirectToolCall that only records a failure for good is not another call.
    await runStep(metrics, 'DirectToolCall', { ...call, failure: { type: 'X', message: 'y' } }, async () => ({}));
    const m = await samples(metrics);
    const calls = (outcome: string) => sumOf(m, 'convengine_tool_calls_total', { tool: 'postgres.query', outcome });
    expect([calls('blocked'), calls('error'), calls('ok')]).toEqual([1, 1, 1]);
    expect(sumOf(m, 'convengine_guardrail_blocks_total', { reason: 'NOT_READ_ONLY' })).toBe(1);
    expect(sumOf(m, 'convengine_step_duration_seconds_count', { step: 'McpToolCall', outcome: 'error' })).toBe(2);
  });

  it('labels a tool call by its tool code key: a planner that varies the case of a code adds no series', async () => {
    const metrics = createWorkerMetrics();
    for (const toolCode of ['Loan.Application.Submit', 'LOAN.application.submit', ' loan.application.submit '])
      await runStep(metrics, 'McpToolCall', { turn, call: { toolCode } }, async () => ({ session: {} }));
    const series = [...(await samples(metrics))].filter(([key]) => key.startsWith('convengine_tool_calls_total{'));
    expect(series).toEqual([
      ['convengine_tool_calls_total{tool="loan.application.submit",outcome="ok",component="worker"}', 3],
    ]);
  });
});

describe('the step observer on a step run (LocalSteps)', () => {
  const entry = (name: string, durationMs: number, state = 'IDLE') => ({
    name,
    callKey: `01-${name}`,
    durationMs,
    result: { patch: {}, summary: { outcome: 'Continue', intent: 'FAQ', state, changed: [] } },
  });
  const result = { ran: [entry('Guardrail', 4), entry('Memory', 2, 'ANSWERED')], handedOver: null };

  it('observes each step the run ran under its own name, not the run', async () => {
    const metrics = createWorkerMetrics();
    await expect(runStep(metrics, 'LocalSteps', { turn }, async () => result)).resolves.toBe(result);
    const m = await samples(metrics);
    const count = (step: string) => sumOf(m, 'convengine_step_duration_seconds_count', { step, outcome: 'ok' });
    expect([count('Guardrail'), count('Memory'), count('LocalSteps')]).toEqual([1, 1, 0]);
    expect(sumOf(m, 'convengine_step_duration_seconds_sum', { step: 'Guardrail' })).toBeCloseTo(0.004);
  });

  it('logs one info line for the run, naming its steps; a line per step only at debug', async () => {
    const linesAt = async (level: string) => {
      const log = captureLog();
      const logger = createLogger({ level, format: 'json', name: 'worker', destination: log.stream });
      await runStep(createWorkerMetrics(), 'LocalSteps', { turn }, async () => result, logger);
      return log.lines().filter((l) => l['msg'] !== 'step started');
    };
    const runLine = {
      level: 'info',
      msg: 'step run completed',
      step: 'LocalSteps',
      steps: ['Guardrail', 'Memory'],
      intent: 'FAQ',
      state: 'ANSWERED',
      conversationId: 'c',
      turn: 1,
      workflowId: 'turn-c-1',
    };
    const info = await linesAt('info');
    expect(info).toEqual([expect.objectContaining(runLine)]);
    expect(typeof info[0]?.['durationMs']).toBe('number');
    const debug = await linesAt('debug');
    expect(debug.map((l) => [l['msg'], l['step'], l['durationMs'], l['state']])).toEqual([
      ['step completed', 'Guardrail', 4, 'IDLE'],
      ['step completed', 'Memory', 2, 'ANSWERED'],
      ['step run completed', 'LocalSteps', expect.any(Number), 'ANSWERED'],
    ]);
    expect(debug[0]).toMatchObject({ level: 'debug', conversationId: 'c', turn: 1, workflowId: 'turn-c-1' });
  });

  it('observes a run that failed outside its steps (no step named in the failure) as the run', async () => {
    const metrics = createWorkerMetrics();
    await expect(runStep(metrics, 'LocalSteps', { turn }, () => Promise.reject(new Error('db down')))).rejects.toThrow(
      'db down'
    );
    const m = await samples(metrics);
    expect(sumOf(m, 'convengine_step_duration_seconds_count', { step: 'LocalSteps', outcome: 'error' })).toBe(1);
  });
});

describe('the step observer on a step run one of its steps failed', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | null;
  beforeAll(() => {
    tracing = setupTracing({ serviceName: 'step-observer-test', spanProcessor: new SimpleSpanProcessor(exporter) });
  });
  afterAll(async () => tracing?.shutdown());
  beforeEach(() => exporter.reset());

  const ran = (name: string, durationMs: number, state: string) => ({
    name,
    callKey: `01-${name}`,
    durationMs,
    result: { patch: {}, summary: { outcome: 'Continue', intent: 'FAQ', state, changed: [] } },
  });
  const failedRun = () =>
    ApplicationFailure.create({
      type: 'Error',
      message: 'connection reset',
      details: [
        { ran: [ran('Guardrail', 4, 'IDLE')], failedStep: { name: 'Memory', callKey: '02-Memory' }, failedAfterMs: 3 },
      ],
    });
  const session = { intent: 'UNKNOWN', state: 'UNKNOWN' };
  /** The step run as the worker's OpenTelemetry interceptor runs it: in its RunActivity span. */
  const inRunSpan = (work: () => Promise<unknown>) =>
    inSpan('RunActivity:LocalSteps', {}, () => work()).catch((err: unknown) => err);

  it('observes the steps that ran and the step that failed under their own names, in metrics and spans', async () => {
    const metrics = createWorkerMetrics();
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: log.stream });
    const err = await inRunSpan(() =>
      runStep(metrics, 'LocalSteps', { turn, session }, () => Promise.reject(failedRun()), logger)
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    const m = await samples(metrics);
    const count = (step: string, outcome: string) =>
      sumOf(m, 'convengine_step_duration_seconds_count', { step, outcome });
    expect([count('Guardrail', 'ok'), count('Memory', 'error'), count('LocalSteps', 'error')]).toEqual([1, 1, 0]);
    expect(sumOf(m, 'convengine_step_duration_seconds_sum', { step: 'Memory' })).toBeCloseTo(0.003);

    const spans = exporter.getFinishedSpans();
    const span = (name: string) => spans.find((s) => s.name === name);
    const identity = { 'convengine.conversation_id': 'c', 'convengine.turn': 1 };
    expect(span('step Guardrail')?.attributes).toEqual({
      'convengine.step': 'Guardrail',
      ...identity,
      'convengine.intent': 'FAQ',
      'convengine.state': 'IDLE',
    });
    expect(span('step Guardrail')?.status.code).toBe(SpanStatusCode.UNSET);
    // The failed step: the state it started from, in error, with the exception.
    expect(span('step Memory')?.attributes).toMatchObject({ ...identity, 'convengine.state': 'IDLE' });
    expect(span('step Memory')?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'ApplicationFailure' });
    expect(span('step Memory')?.events.map((e) => e.name)).toEqual(['exception']);
    const [guardrail, memory] = [span('step Guardrail'), span('step Memory')];
    expect(guardrail?.parentSpanId).toBe(span('RunActivity:LocalSteps')?.spanContext().spanId);
    expect(hrTimeToMilliseconds(guardrail!.endTime)).toBeLessThanOrEqual(hrTimeToMilliseconds(memory!.startTime));

    // One line, the run's, naming the step that failed it.
    expect(log.lines().filter((l) => l['level'] !== 'debug')).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'step failed',
        step: 'LocalSteps',
        failedStep: 'Memory',
        steps: ['Guardrail'],
      }),
    ]);
  });

  it('gives the run span the intent and state after its last step, and each step span the turn', async () => {
    const result = { ran: [ran('Guardrail', 4, 'IDLE'), ran('Memory', 2, 'ANSWERED')], handedOver: null };
    await inRunSpan(() => runStep(createWorkerMetrics(), 'LocalSteps', { turn, session }, async () => result));
    const spans = exporter.getFinishedSpans();
    expect(spans.find((s) => s.name === 'RunActivity:LocalSteps')?.attributes).toMatchObject({
      'convengine.intent': 'FAQ',
      'convengine.state': 'ANSWERED',
    });
    for (const name of ['step Guardrail', 'step Memory']) {
      expect(spans.find((s) => s.name === name)?.attributes).toMatchObject({
        'convengine.conversation_id': 'c',
        'convengine.turn': 1,
      });
    }
  });
});

describe("the step observer's `step failed` line", () => {
  /** Text a tool's failure may quote from what the user wrote (its arguments echoed back). */
  const USER_TEXT = 'ORD-SECRET-9';
  const toolFailure = () =>
    ApplicationFailure.create({
      type: 'TOOL_HTTP_ERROR',
      message: `orders.lookup: order ${USER_TEXT} not found`,
      cause: new Error(`upstream said ${USER_TEXT}`),
    });
  const failedLine = async (withoutFailureText: boolean) => {
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: log.stream });
    const call = { turn, call: { toolCode: 'orders.lookup' } };
    const failing = () => Promise.reject(toolFailure());
    const run = runStep(createWorkerMetrics(), 'McpToolCall', call, failing, logger, withoutFailureText);
    await expect(run).rejects.toBeInstanceOf(ApplicationFailure);
    return log;
  };

  it("with payload encryption keys, keeps the error's type, the step, attempt and run, never its message or stack", async () => {
    const log = await failedLine(true);
    expect(log.raw()).not.toContain(USER_TEXT);
    const [line] = log.lines();
    expect(line).toMatchObject({
      level: 'warn',
      msg: 'step failed',
      errorType: 'TOOL_HTTP_ERROR',
      step: 'McpToolCall',
      tool: 'orders.lookup',
      attempt: 1,
      conversationId: 'c',
      workflowId: 'turn-c-1',
      runId: 'r',
      err: { type: 'ApplicationFailure', failureType: 'TOOL_HTTP_ERROR', cause: { type: 'Error' } },
    });
    expect(line?.['err']).not.toHaveProperty('message');
    expect(line?.['err']).not.toHaveProperty('stack');
  });

  it('without keys, writes the error whole, its message and stack', async () => {
    const [line] = (await failedLine(false)).lines();
    expect(line?.['err']).toMatchObject({
      type: 'ApplicationFailure',
      message: expect.stringContaining(USER_TEXT),
      stack: expect.any(String),
    });
  });
});
