import { patched, proxyLocalActivities } from '@temporalio/workflow';
import type { TurnActivities } from '../core/turn/activities';
import type { PipelineStepName, RecordedDecision, StepInput, StepResult } from '../core/turn/contracts';
import {
  localRun,
  runSummary,
  type HandedOverStep,
  type PlannedStep,
  type StepRunEntry,
  type StepRunInput,
} from '../core/turn/step-runs';
import { STEP_TABLE } from '../core/turn/steps';
import { localActivityOptionsFor } from './activity-options';

/** Histories from before step runs scheduled every local step as a local activity of its own. */
export const STEP_RUNS_PATCH = 'local-step-runs';

const { LocalSteps } = proxyLocalActivities<Pick<TurnActivities, 'LocalSteps'>>(
  localActivityOptionsFor(STEP_TABLE.LocalSteps)
);

/** What a run already settled for a step the driver now asks for. */
export type RunAnswer =
  | { kind: 'ran'; result: StepResult }
  /** The step reached the LLM or consumer code: it runs as a regular activity, with the run's decisions if it was first. */
  | { kind: 'handedOver'; reason: string; decisions?: RecordedDecision[] };

/**
 * The workflow side of step runs (core/turn/step-runs.ts): starts a run when the driver asks for a
 * local step that has more local steps planned after it, and answers the driver's next requests
 * from the run's result, in order.
 */
export class LocalStepRuns {
  private ran: StepRunEntry[] = [];
  private handedOver: (HandedOverStep & { decisions?: RecordedDecision[] }) | null = null;

  constructor(private readonly runsLocally: (name: PipelineStepName) => boolean) {}

  /** The run's answer for this step; null when no run covered it. */
  take(step: PlannedStep): RunAnswer | null {
    const first = this.ran[0];
    if (first) {
      this.expect(first, step);
      this.ran.shift();
      return { kind: 'ran', result: first.result };
    }
    const handed = this.handedOver;
    if (!handed) return null;
    this.expect(handed, step);
    this.handedOver = null;
    return { kind: 'handedOver', reason: handed.reason, ...(handed.decisions ? { decisions: handed.decisions } : {}) };
  }

  /**
   * The run that would start at `step`: two or more local steps; else null. The patch is asked
   * first, so histories from before runs replay with the very commands they recorded.
   */
  plan(step: PlannedStep, next: readonly PlannedStep[]): PlannedStep[] | null {
    if (!patched(STEP_RUNS_PATCH)) return null;
    const run = localRun(step, next, this.runsLocally);
    return run.length > 1 ? run : null;
  }

  /** Runs the planned steps as one local activity; `call` is the first step's input, as the executor built it. */
  async run(steps: PlannedStep[], call: StepInput): Promise<void> {
    const input: StepRunInput = {
      turn: call.turn,
      session: call.session,
      steps,
      ...(call.decisions ? { decisions: call.decisions } : {}),
    };
    const result = await LocalSteps.executeWithOptions(
      { ...localActivityOptionsFor(STEP_TABLE.LocalSteps), summary: runSummary(steps) },
      [input]
    );
    this.ran = result.ran;
    const firstHandedOver = result.handedOver !== null && result.ran.length === 0;
    this.handedOver = result.handedOver
      ? { ...result.handedOver, ...(firstHandedOver && call.decisions ? { decisions: call.decisions } : {}) }
      : null;
  }

  /** The driver asks for steps in the order it planned them; anything else is a bug, not a retryable failure. */
  private expect(held: PlannedStep, asked: PlannedStep): void {
    if (held.name !== asked.name || held.callKey !== asked.callKey) {
      throw new Error(`step run out of order: holds ${held.callKey} (${held.name}), asked for ${asked.callKey}`);
    }
  }
}
