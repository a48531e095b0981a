import type { Attributes } from '@opentelemetry/api';
import { ApplicationFailure } from '@temporalio/common';
import { isStepRunFailure, timedBackFrom, type StepRunEntry, type StepRunFailure } from '../core/turn/step-runs';
import { withLogContext, type Logger } from './logger';
import type { WorkerMetrics } from './metrics';
import { recordSpan } from './tracing';

/** The turn a run belongs to and the intent and state its first step started from. */
export interface RunIdentity {
  conversationId?: string;
  turn?: number;
  intent?: string;
  state?: string;
}

export interface IntentState {
  intent?: string;
  state?: string;
}

/** A step of the run as observed: one that ran, or the one that failed the run (`error`). */
interface ObservedStep {
  name: string;
  durationMs: number;
  /** After the step; for the failed step, what it started from. */
  at: IntentState;
  error?: unknown;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

export function definedAttributes(values: Record<string, string | number | undefined>): Attributes {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Attributes;
}

/** The run's failure detail naming the step that failed it (activities/pipeline/step-runs.ts); null for any other failure. */
export function stepRunFailureOf(err: unknown): StepRunFailure | null {
  if (!(err instanceof ApplicationFailure)) return null;
  return (err.details ?? []).find(isStepRunFailure) ?? null;
}

/**
 * The steps a run ran, then the step that failed it (with `failure`): each observed and traced (a
 * `step <name>` span in the run's) under its own name, as if it had run alone, the failed one with
 * outcome `error`. Only the run's end is known here, so each step is timed back from it by the
 * durations the steps took. A line per step is debug: at info they were two thirds of a turn's
 * lines (~50 µs of CPU each, mostly pino's redaction) and said what metrics, spans and history say.
 * Answers the intent and state after the last step that ran (the run's start when none did).
 */
export function observeStepRun(
  deps: { logger: Logger; metrics: WorkerMetrics },
  id: RunIdentity,
  ran: readonly StepRunEntry[],
  failure: { failure: StepRunFailure; err: unknown; runMs: number } | null
): IntentState {
  let at: IntentState = { intent: id.intent, state: id.state };
  const steps: ObservedStep[] = ran.map((entry) => {
    // Read defensively: isRanList checks each entry's name and duration, not its result.
    const summary = record(record(entry.result)['summary']);
    at = { intent: text(summary['intent']), state: text(summary['state']) };
    return { name: entry.name, durationMs: entry.durationMs, at };
  });
  const after = at;
  if (failure) {
    const ranMs = ran.reduce((sum, e) => sum + e.durationMs, 0);
    const durationMs = failure.failure.failedAfterMs ?? Math.max(0, failure.runMs - ranMs);
    steps.push({ name: failure.failure.failedStep.name, durationMs, at, error: failure.err });
  }
  const { logger, metrics } = deps;
  const perStepLines = logger.isLevelEnabled('debug');
  for (const { step, startMs, endMs } of timedBackFrom(steps, Date.now())) {
    const { name, durationMs } = step;
    metrics.stepDuration.observe({ step: name, outcome: step.error === undefined ? 'ok' : 'error' }, durationMs / 1000);
    const attributes = definedAttributes({
      'convengine.step': name,
      'convengine.conversation_id': id.conversationId,
      'convengine.turn': id.turn,
      'convengine.intent': step.at.intent,
      'convengine.state': step.at.state,
    });
    recordSpan(`step ${name}`, attributes, startMs, endMs, step.error);
    if (perStepLines && step.error === undefined) {
      withLogContext({ step: name }, () => logger.debug({ durationMs, ...step.at }, 'step completed'));
    }
  }
  return after;
}
