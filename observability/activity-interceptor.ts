import { toolCodeKey } from '../core/config/vocabulary';
import { trace, type Attributes } from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import type {
  ActivityExecuteInput,
  ActivityInterceptors,
  Next,
  ActivityInboundCallsInterceptor,
} from '@temporalio/worker';
import { ErrorType, isEngineError } from '../core/errors';
import { isStepRunType, timedBackFrom } from '../core/turn/step-runs';
import { withLogContext, type Logger } from './logger';
import { reasonLabel, type WorkerMetrics } from './metrics';
import { inSpan, recordSpan } from './tracing';

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

function definedAttributes(values: Record<string, string | number | undefined>): Attributes {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Attributes;
}

export interface StepObserverDeps {
  logger: Logger;
  metrics: WorkerMetrics;
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
      const seconds = (performance.now() - started) / 1000;
      if (isStepRunType(step)) {
        this.observeRun(output, seconds);
        return output;
      }
      metrics.stepDuration.observe({ step, outcome: 'ok' }, seconds);
      // conversationTurn steps return the session; conversationTurnV2 steps a patch with a summary of it.
      const result = record(output);
      const after = record(result['session'] ?? result['summary']);
      const attributes = { intent: text(after['intent']) ?? id.intent, state: text(after['state']) ?? id.state };
      trace
        .getActiveSpan()
        ?.setAttributes(
          definedAttributes({ 'convengine.intent': attributes.intent, 'convengine.state': attributes.state })
        );
      logger.info({ durationMs: Math.round(seconds * 1000), ...attributes }, 'step completed');
      return output;
    } catch (err) {
      const seconds = (performance.now() - started) / 1000;
      metrics.stepDuration.observe({ step, outcome: 'error' }, seconds);
      const type = isEngineError(err) ? err.type : err instanceof Error ? err.name : 'UNKNOWN';
      logger.warn({ durationMs: Math.round(seconds * 1000), errorType: type, err }, 'step failed');
      throw err;
    }
  }

  /**
   * A step run: each step it ran is observed and traced (a `step <name>` span in the run's) under its
   * own name, as if it had run alone. Only the run's end is known here, so each step is timed back
   * from it by the durations the steps took. The run writes one info line naming its steps, as any
   * other activity writes one; a line per step is debug: at info they were two thirds of a turn's
   * lines (~50 µs of CPU each, mostly pino's redaction) and said what metrics, spans and history say.
   */
  private observeRun(output: unknown, seconds: number): void {
    const ran = record(output)['ran'];
    if (!Array.isArray(ran)) return;
    const steps = ran
      .map(record)
      .flatMap((e) =>
        typeof e['name'] === 'string' && typeof e['durationMs'] === 'number'
          ? [{ entry: e, name: e['name'], durationMs: e['durationMs'] }]
          : []
      );
    const { logger, metrics } = this.deps;
    const perStepLines = logger.isLevelEnabled('debug');
    let after: { intent?: string; state?: string } = {};
    for (const { step, startMs, endMs } of timedBackFrom(steps, Date.now())) {
      const { entry, name, durationMs } = step;
      const summary = record(record(entry['result'])['summary']);
      after = { intent: text(summary['intent']), state: text(summary['state']) };
      metrics.stepDuration.observe({ step: name, outcome: 'ok' }, durationMs / 1000);
      const spanAttributes = {
        'convengine.step': name,
        'convengine.intent': after.intent,
        'convengine.state': after.state,
      };
      recordSpan(`step ${name}`, definedAttributes(spanAttributes), startMs, endMs);
      if (perStepLines) withLogContext({ step: name }, () => logger.debug({ durationMs, ...after }, 'step completed'));
    }
    const names = steps.map((s) => s.name);
    logger.info({ durationMs: Math.round(seconds * 1000), steps: names, ...after }, 'step run completed');
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
