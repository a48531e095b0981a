import { ApplicationFailure } from '@temporalio/common';
import type { Session } from '../../core/session';
import type { StepInput, StepReply } from '../../core/turn/contracts';
import { applySessionPatch } from '../../core/turn/patch';
import { isStepResult } from '../../core/turn/step-result';
import {
  endsRun,
  firstStepInput,
  type RunStepName,
  type StepRunEntry,
  type StepRunFailure,
  type StepRunInput,
  type StepRunResult,
} from '../../core/turn/step-runs';
import type { ActivityDeps } from '../deps';
import { throwIfCancelled } from '../runtime/activity-context';
import { asLocalAttempt } from '../runtime/local-attempt';
import { trackStepRun, type StepRunProgress } from '../runtime/step-run-progress';
import { handOverReason, isProgrammingError } from '../../core/errors';
import type { TurnActivities } from '../../core/turn/activities';

/** The activities a run may call, by step name: what the worker registers. */
export type RunStepActivities = Pick<TurnActivities, RunStepName>;

/**
 * The step's failure as the run's, unchanged in type, message and retryability, with the run's
 * progress as its last detail: a run is one marker in history, and that names the failed step.
 */
function failedIn(err: unknown, progress: StepRunFailure): ApplicationFailure {
  const failure = err instanceof Error ? err : new Error(String(err));
  const details = failure instanceof ApplicationFailure ? [...(failure.details ?? [])] : [];
  return ApplicationFailure.create({
    type: (failure instanceof ApplicationFailure ? failure.type : null) ?? failure.name,
    message: failure.message,
    nonRetryable: failure instanceof ApplicationFailure ? failure.nonRetryable === true : isProgrammingError(failure),
    details: [...details, progress],
    cause: failure instanceof ApplicationFailure ? failure.cause : failure,
  });
}

export interface StepRunDeps extends Pick<ActivityDeps, 'clock'> {
  /** Holds the steps' audit writes and writes them in one round trip when the run ends (withHeldAudits). */
  holdAudits<T>(work: () => Promise<T>): Promise<T>;
}

type StepRunActivity = (input: StepRunInput) => Promise<StepRunResult>;

/**
 * The step-run activities (core/turn/step-runs.ts): the run's steps, in order, through the very
 * activity functions the worker registers for them, so each records its own audit rows under its
 * own call key and a retry of the run rewrites them instead of duplicating. The rows of all the
 * run's steps reach ce_audit in one round trip, as the run ends. A run stops after a step that
 * stops the turn, asks for a direct tool call or starts the planner loop, and before a step that
 * must run as a regular activity of its own. A step's other failure fails the run, which Temporal
 * retries as a whole; a cancelled attempt ends cancelled, as a single step's does (throwIfCancelled).
 *
 * - `LocalSteps` runs as a local activity, where every step is a local attempt.
 * - `RegularSteps` runs as a regular activity: its lead may call the LLM or consumer code, the steps
 *   after it are attempted as a local attempt would be (asLocalAttempt), so a second LLM call is
 *   handed over to a regular activity of its own.
 */
export function createStepRuns(
  steps: RunStepActivities,
  deps: StepRunDeps
): { LocalSteps: StepRunActivity; RegularSteps: StepRunActivity } {
  return {
    LocalSteps: (input) => deps.holdAudits(() => runSteps(steps, deps, input, (_, call) => call())),
    RegularSteps: (input) =>
      deps.holdAudits(() => runSteps(steps, deps, input, (i, call) => (i === 0 ? call() : asLocalAttempt(call)))),
  };
}

type StepAttempt = (index: number, call: () => Promise<StepReply>) => Promise<StepReply>;

/** The run's steps, with the step it is in kept for the turn's failure row should Temporal give up on it. */
async function runSteps(
  steps: RunStepActivities,
  deps: StepRunDeps,
  input: StepRunInput,
  attempt: StepAttempt
): Promise<StepRunResult> {
  const progress = trackStepRun();
  try {
    return await runEachStep(steps, deps, input, attempt, progress);
  } finally {
    progress.end();
  }
}

async function runEachStep(
  steps: RunStepActivities,
  deps: StepRunDeps,
  input: StepRunInput,
  attempt: StepAttempt,
  progress: StepRunProgress
): Promise<StepRunResult> {
  const ran: StepRunEntry[] = [];
  let session: Session = input.session;
  // The run that holds PipelineEnd carries the turn's timings; its steps add their own as they run.
  const timings = input.stepTimings ? [...input.stepTimings] : null;
  for (const [i, planned] of input.steps.entries()) {
    progress.enter(planned.name);
    const call: StepInput = {
      ...(i === 0
        ? firstStepInput(input, planned)
        : { turn: input.turn, session, callKey: planned.callKey, reply: 'patch' }),
      ...(timings ? { stepTimings: [...timings] } : {}),
    };
    const started = deps.clock.now().getTime();
    let reply;
    try {
      reply = await attempt(i, () => steps[planned.name](call));
    } catch (err) {
      // A cancelled attempt ends as a single step's does (WorkerShutdown on a stopping worker), not as the run's failure.
      throwIfCancelled();
      const reason = handOverReason(err);
      const failedAfterMs = deps.clock.now().getTime() - started;
      if (reason === null) throw failedIn(err, { ran, failedStep: planned, failedAfterMs });
      return { ran, handedOver: { ...planned, reason } };
    }
    if (!isStepResult(reply)) throw new Error(`${planned.name} answered a patch request with a whole session`);
    const { durationMs = deps.clock.now().getTime() - started, ...result } = reply;
    ran.push({ ...planned, result, durationMs });
    timings?.push({ step: planned.name, durationMs });
    if (endsRun(reply)) break;
    session = applySessionPatch(session, reply.patch);
  }
  return { ran, handedOver: null };
}
