import { toolCodeKey } from '../core/config/vocabulary';
import { trace } from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type {
  ActivityExecuteInput,
  ActivityInterceptors,
  Next,
  ActivityInboundCallsInterceptor,
} from '@temporalio/worker';
import { ErrorType, isEngineError } from '../core/errors';
import { isRanList, isStepRunType } from '../core/turn/step-runs';
import { withLogContext, type Logger } from './logger';
import { reasonLabel, type WorkerMetrics } from './metrics';
import { definedAttributes, observeStepRun, stepRunFailureOf } from './step-run-observer';
import { failureOutline } from './failure-outline';
import { FAILURE_OUTLINE_ATTRIBUTE, inSpan } from './tracing';

/** Activity types that call one tool (a DirectToolCall with `failure` only records a failure). */
const TOOL_ACTIVITIES = new Set(['McpToolCall', 'DirectToolCall']);

/** The parts of an activity's input we read; activity inputs are typed, but read them defensively. */
interface StepIdentity {
  conversationId?: string;
  turn?: number;
  intent?: string;
  state?: string;
  toolCode?: string;
  recordsFailure: boolean;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function identityOf(arg: unknown): StepIdentity {
  const input = record(arg);
  const turn = record(input['turn']);
  const session = record(input['session']);
  return {
    conversationId: text(turn['conversationId']),
    turn: typeof turn['turnNumber'] === 'number' ? turn['turnNumber'] : undefined,
    intent: text(session['intent']),
    state: text(session['state']),
    toolCode: text(record(input['call'])['toolCode']),
    recordsFailure: input['failure'] !== undefined,
  };
}

/** The SQL guardrail's verdict code when `err` is its rejection. */
function guardrailCode(err: unknown): string | undefined {
  if (!isEngineError(err) || err.type !== ErrorType.SqlGuardrailRejected) return undefined;
  return reasonLabel(err.details?.['code']);
}

/** A step's failure reaches here as the ApplicationFailure Temporal records: its type is the step's error type. */
function errorTypeOf(err: unknown): string {
  if (isEngineError(err)) return err.type;
  if (err instanceof ApplicationFailure && err.type) return err.type;
  return err instanceof Error ? err.name : 'UNKNOWN';
}

/** The intent and state after the step, on the activity's span. */
function setStepState(after: { intent?: string | undefined; state?: string | undefined }): void {
  trace
    .getActiveSpan()
    ?.setAttributes(definedAttributes({ 'convengine.intent': after.intent, 'convengine.state': after.state }));
}

export interface StepObserverDeps {
  logger: Logger;
  metrics: WorkerMetrics;
  /** `step failed` keeps the error's outline only, never its message or stack (failure-outline.ts withoutFailureText). */
  withoutFailureText?: boolean;
}

/**
 * Observes every activity (one step of a turn): its log lines carry the turn's identity, its
 * duration lands in convengine_step_duration_seconds, its span gets the intent and state, a tool
 * activity gets a child span and the tool and guardrail counters (the driver's decisions are counted
 * as they are recorded: metrics.ts countDecision). Sits inside the OpenTelemetry interceptor, so its span is active.
 */
class StepObserver implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: ActivityContext,
    private readonly deps: StepObserverDeps
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { info } = this.ctx;
    const step = info.activityType;
    const id = identityOf(input.args[0]);
    const fields = {
      ...(id.conversationId ? { conversationId: id.conversationId } : {}),
      ...(id.turn !== undefined ? { turn: id.turn } : {}),
      step,
      ...(id.toolCode ? { tool: id.toolCode } : {}),
      attempt: info.attempt,
      ...(info.workflowExecution ? { workflowId: info.workflowExecution.workflowId } : {}),
    };
    trace.getActiveSpan()?.setAttributes(
      definedAttributes({
        'convengine.step': step,
        'convengine.conversation_id': id.conversationId,
        'convengine.turn': id.turn,
        'convengine.intent': id.intent,
        'convengine.state': id.state,
      })
    );
    return withLogContext(fields, () => this.observe(step, id, () => this.run(step, id, input, next)));
  }

  private async observe(step: string, id: StepIdentity, run: () => Promise<unknown>): Promise<unknown> {
    const { logger, metrics } = this.deps;
    const started = performance.now();
    logger.debug('step started');
    try {
      const output = await run();
      const elapsedMs = performance.now() - started;
      const durationMs = Math.round(elapsedMs);
      if (isStepRunType(step)) {
        const ran = record(output)['ran'];
        const steps = isRanList(ran) ? ran : [];
        const after = observeStepRun(this.deps, id, steps, null);
        setStepState(after);
        logger.info({ durationMs, steps: steps.map((s) => s.name), ...after }, 'step run completed');
        return output;
      }
      metrics.stepDuration.observe({ step, outcome: 'ok' }, elapsedMs / 1000);
      // conversationTurn steps return the session; conversationTurnV2 steps a patch with a summary of it.
      const result = record(output);
      const after = record(result['session'] ?? result['summary']);
      const attributes = { intent: text(after['intent']) ?? id.intent, state: text(after['state']) ?? id.state };
      setStepState(attributes);
      logger.info({ durationMs, ...attributes }, 'step completed');
      return output;
    } catch (err) {
      const runMs = performance.now() - started;
      const type = errorTypeOf(err);
      // The one line of a failed attempt (the SDK's own is debug: temporal-runtime.ts), so it names the run too.
      const { info } = this.ctx;
      const where = { runId: info.workflowExecution?.runId, activityId: info.activityId };
      const failure = this.observeFailure(step, id, err, runMs);
      const outline = this.deps.withoutFailureText ? failureOutline(err) : null;
      // The SDK's RunActivity span records the error without its text then (tracing.ts): this says what it was.
      if (outline) trace.getActiveSpan()?.setAttribute(FAILURE_OUTLINE_ATTRIBUTE, JSON.stringify(outline));
      logger.warn(
        { durationMs: Math.round(runMs), errorType: type, ...failure, ...where, err: outline ?? err },
        'step failed'
      );
      throw err;
    }
  }

  /**
   * A failed step in the metrics and the trace. A step run that one of its steps failed is observed as
   * it is on success, step by step, the failed step last with outcome `error`; the log line names it.
   */
  private observeFailure(step: string, id: StepIdentity, err: unknown, runMs: number): Record<string, unknown> {
    const failure = isStepRunType(step) ? stepRunFailureOf(err) : null;
    if (!failure) {
      this.deps.metrics.stepDuration.observe({ step, outcome: 'error' }, runMs / 1000);
      return {};
    }
    observeStepRun(this.deps, id, failure.ran, { failure, err, runMs });
    return { steps: failure.ran.map((s) => s.name), failedStep: failure.failedStep.name };
  }

  private run(
    step: string,
    id: StepIdentity,
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>
  ): Promise<unknown> {
    if (!TOOL_ACTIVITIES.has(step) || id.toolCode === undefined || id.recordsFailure) return next(input);
    const tool = id.toolCode;
    // The planner's spelling passes the guard in any case (toolCodeKey); the label takes the key, so a model that
    // varies the case of a tool code cannot add a series per spelling.
    const label = toolCodeKey(tool);
    return inSpan(`tool ${tool}`, { 'convengine.tool.code': tool }, async (span) => {
      try {
        const output = await next(input);
        span.setAttributes({ 'convengine.tool.outcome': 'ok', 'convengine.guardrail.outcome': 'allowed' });
        this.deps.metrics.toolCalls.inc({ tool: label, outcome: 'ok' });
        return output;
      } catch (err) {
        const blocked = guardrailCode(err);
        const outcome = blocked ? 'blocked' : 'error';
        span.setAttributes({
          'convengine.tool.outcome': outcome,
          'convengine.guardrail.outcome': blocked ?? 'allowed',
        });
        this.deps.metrics.toolCalls.inc({ tool: label, outcome });
        if (blocked) this.deps.metrics.guardrailBlocks.inc({ reason: blocked });
        throw err;
      }
    });
  }
}

export function stepObserver(deps: StepObserverDeps): (ctx: ActivityContext) => ActivityInterceptors {
  return (ctx) => ({ inbound: new StepObserver(ctx, deps) });
}
