import { activityContext, attemptAbandoned } from './activity-context';

/**
 * The step each step run of this worker is in, by workflow run. A step run is one activity in history, so when
 * its last attempt times out Temporal names the run (`LocalSteps`, `RegularSteps`), not the step that hung.
 * TurnFailure reads the step here to name it in the turn's failure row. It runs in the worker that ran the
 * workflow task, as a local run did; a regular run another worker picked up is not known here, and the row
 * names the run as before.
 */
interface InFlight {
  step: string;
}

/** Entries outlive their attempt only when Temporal gave up on it; this bounds what a worker keeps of those. */
const MAX_ENTRIES = 10_000;
const inFlight = new Map<string, InFlight>();

export interface StepRunProgress {
  enter(step: string): void;
  /** The attempt ended. An abandoned one keeps its entry: the turn's failure row reads it next. */
  end(): void;
}

const untracked: StepRunProgress = { enter: () => undefined, end: () => undefined };

/** Tracks the current activity's steps; outside Temporal (the in-process runner) it records nothing. */
export function trackStepRun(): StepRunProgress {
  const runId = activityContext()?.info.workflowExecution?.runId;
  if (!runId) return untracked;
  const entry: InFlight = { step: '' };
  return {
    enter(step) {
      // Once Temporal gave up on the attempt, the step it was in when it did is the one to name.
      if (attemptAbandoned() && entry.step !== '') return;
      entry.step = step;
      inFlight.delete(runId);
      inFlight.set(runId, entry);
      if (inFlight.size > MAX_ENTRIES) inFlight.delete(inFlight.keys().next().value as string);
    },
    end() {
      if (inFlight.get(runId) === entry && !attemptAbandoned()) inFlight.delete(runId);
    },
  };
}

/** The step a step run of workflow run `runId` was in when Temporal gave up on it, taken once; null if unknown here. */
export function takeHungStep(runId: string): string | null {
  const entry = inFlight.get(runId);
  inFlight.delete(runId);
  return entry?.step || null;
}
