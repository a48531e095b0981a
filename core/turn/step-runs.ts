import type { Session } from '../session';
import type { PipelineStepName, RecordedDecision, StepInput, StepResult, TurnInput } from './contracts';
import type { StepSpec } from './steps';

/**
 * Step runs: consecutive pipeline steps that all run as local activities go to the worker as ONE
 * local activity (`LocalSteps`), which calls the same step functions in order, each writing its own
 * audit rows under its own call key, and returns every step's StepResult under its step name. A
 * local activity costs the SDK a workflow activation whatever it does (bench/README.md), so a turn
 * pays for a handful of runs instead of twenty-odd bookkeeping steps. The driver is unchanged: it
 * still asks for every step, and the workflow answers the run's steps from the run's result.
 */

/** A pipeline step the driver will ask for, under the call key it will use. */
export interface PlannedStep {
  name: PipelineStepName;
  callKey: string;
}

export interface StepRunInput {
  turn: TurnInput;
  /** The session the first step reads (without the workflow's `stepInfos`, as in every step input). */
  session: Session;
  /** Two or more steps, in driver order. */
  steps: PlannedStep[];
  /** Driver decisions the first step records first (StepInput.decisions). */
  decisions?: RecordedDecision[];
}

export interface StepRunEntry extends PlannedStep {
  result: StepResult;
  durationMs: number;
}

/** A step of the run that reached the LLM or consumer code: it wrote nothing, and runs next as a regular activity. */
export interface HandedOverStep extends PlannedStep {
  reason: string;
}

export interface StepRunResult {
  /** The steps that ran, in order; the first `ran.length` of the input's steps. */
  ran: StepRunEntry[];
  handedOver: HandedOverStep | null;
}

/**
 * The last detail of the failure of a run one of its steps failed: the steps that ran before it
 * and the step, so the history still names the step that failed (api/history/entries.ts).
 */
export interface StepRunFailure {
  ran: StepRunEntry[];
  failedStep: PlannedStep;
}

/**
 * Whether a step goes into step runs in a new turn: local steps, and local-first ones (which a
 * run hands over to a regular activity when they reach the LLM or consumer code). Workflow code
 * also asks which patches the history it replays recorded (workflows/step-kinds.ts).
 */
export function joinsStepRuns(spec: StepSpec): boolean {
  return spec.kind === 'local' || spec.localFirst === true;
}

/** The LocalSteps input for `steps`, built from the first step's call as the executor built it. */
export function stepRunInput(steps: PlannedStep[], call: StepInput): StepRunInput {
  return {
    turn: call.turn,
    session: call.session,
    steps,
    ...(call.decisions ? { decisions: call.decisions } : {}),
  };
}

/** What a run already settled for a step the driver now asks for. */
export type RunAnswer =
  | { kind: 'ran'; result: StepResult }
  /** The step reached the LLM or consumer code: it runs as a regular activity, with the run's decisions if it was first. */
  | { kind: 'handedOver'; reason: string; decisions?: RecordedDecision[] };

/**
 * A run's result, handed back one step at a time: the driver still asks for every step, in the
 * order it planned them, and each executor (the workflow's and the in-process one) answers the
 * run's steps from here.
 */
export class StepRunResults {
  private ran: StepRunEntry[] = [];
  private handedOver: (HandedOverStep & { decisions?: RecordedDecision[] }) | null = null;

  /** Holds a run's result; a first step handed over carries the decisions the run was to record. */
  hold(result: StepRunResult, input: StepRunInput): void {
    this.ran = [...result.ran];
    const firstHandedOver = result.handedOver !== null && result.ran.length === 0;
    this.handedOver = result.handedOver
      ? { ...result.handedOver, ...(firstHandedOver && input.decisions ? { decisions: input.decisions } : {}) }
      : null;
  }

  /** The run's answer for this step; null when no run covered it. */
  take(step: PlannedStep): RunAnswer | null {
    const first = this.ran[0];
    if (first) {
      expectStep(first, step);
      this.ran.shift();
      return { kind: 'ran', result: first.result };
    }
    const handed = this.handedOver;
    if (!handed) return null;
    expectStep(handed, step);
    this.handedOver = null;
    return { kind: 'handedOver', reason: handed.reason, ...(handed.decisions ? { decisions: handed.decisions } : {}) };
  }
}

/** The driver asks for steps in the order it planned them; anything else is a bug, not a retryable failure. */
function expectStep(held: PlannedStep, asked: PlannedStep): void {
  if (held.name !== asked.name || held.callKey !== asked.callKey) {
    throw new Error(`step run out of order: holds ${held.callKey} (${held.name}), asked for ${asked.callKey}`);
  }
}

/** After a stop or a direct tool call the driver leaves the run's path, so the run ends there. */
export function endsRun(result: StepResult): boolean {
  return result.stop !== undefined || result.directToolCall !== undefined;
}

/** The run starting at `first`: it and the planned steps after it while each runs locally. */
export function localRun(
  first: PlannedStep,
  next: readonly PlannedStep[],
  runsLocally: (name: PipelineStepName) => boolean
): PlannedStep[] {
  if (!runsLocally(first.name)) return [first];
  const run = [first];
  for (const step of next) {
    if (!runsLocally(step.name)) break;
    run.push(step);
  }
  return run;
}

/**
 * Temporal refuses user metadata summaries over 400 bytes; the longest run (the 17 steps before
 * the MCP step) takes ~300, so every run lists its steps by name, with room to spare.
 */
const SUMMARY_MAX_CHARS = 360;

/** The run's summary in the Temporal UI: every step of it, by name, in order. */
export function runSummary(steps: readonly PlannedStep[]): string {
  const all = `LocalSteps: ${steps.map((s) => s.name).join(', ')}`;
  if (all.length <= SUMMARY_MAX_CHARS) return all;
  const last = steps[steps.length - 1]?.name ?? '';
  return `${all.slice(0, SUMMARY_MAX_CHARS - last.length - 24)} … ${last} (${steps.length} steps)`;
}
