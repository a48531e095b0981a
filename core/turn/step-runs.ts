import type { Session } from '../session';
import type { PipelineStepName, RecordedDecision, StepResult, TurnInput } from './contracts';

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
