import { isJsonObject } from '../json';
import type { Session } from '../session';
import type { PipelineStepName, RecordedDecision, StepInput, StepResult, StepTiming, TurnInput } from './contracts';
import type { StepName, StepSpec } from './steps';
import type { AuditRecord } from '../audit';

/**
 * Step runs: a step and the local steps the driver will ask for right after it go to the worker as
 * ONE activity, which calls the same step functions in order, each writing its own audit rows under
 * its own call key, and returns every step's StepResult under its step name. Led by a local step,
 * the run is a local activity (`LocalSteps`); led by a step that runs as a regular activity (an LLM
 * call, the commit), a regular one (`RegularSteps`) with the lead's retry policy, in which the steps
 * after the lead hand the LLM and consumer code over as a local attempt would. An activity costs the
 * SDK a workflow activation whatever it does (bench/README.md), so a turn pays for a handful of runs
 * instead of twenty-odd bookkeeping steps. The driver still asks for every step, and each executor
 * answers the run's steps from the run's result.
 */

/** The activity types that run step runs: history readers read them as the steps they ran. */
export const STEP_RUN_TYPES = ['LocalSteps', 'RegularSteps'] as const;
export type StepRunType = (typeof STEP_RUN_TYPES)[number];

export function isStepRunType(type: string): type is StepRunType {
  return (STEP_RUN_TYPES as readonly string[]).includes(type);
}

/**
 * Steps a run may hold: the pipeline steps, and the two bookkeeping units of the MCP step around
 * the planner loop, McpPrepare (after the steps before it) and McpFinalize (before the steps after it).
 */
export type RunStepName = PipelineStepName | 'McpPrepare' | 'McpFinalize';

/** A step the driver will ask for, under the call key it will use. */
export interface PlannedStep {
  name: RunStepName;
  callKey: string;
}

/** McpPrepare and McpFinalize join runs only in histories with the patch that let them (core/turn/step-runner.ts). */
export function isMcpUnit(name: RunStepName): name is 'McpPrepare' | 'McpFinalize' {
  return name === 'McpPrepare' || name === 'McpFinalize';
}

export interface StepRunInput {
  turn: TurnInput;
  /** The session the first step reads (without the workflow's `stepInfos`, as in every step input). */
  session: Session;
  /** Two or more steps, in driver order. */
  steps: PlannedStep[];
  /** Driver decisions the first step records first (StepInput.decisions). */
  decisions?: RecordedDecision[];
  /** Rows decided in workflow code that the first step writes first, under their own key (StepInput.carryAudits). */
  carryAudits?: AuditRecord[];
  carryKey?: string;
  /** The turn's step timings before the run: only in the run that holds PipelineEnd (StepInput.stepTimings). */
  stepTimings?: StepTiming[];
}

export interface StepRunEntry extends PlannedStep {
  /** The step's result, without its duration: the entry holds that. */
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
  /** How long the failed step ran before it failed; absent in histories recorded before it was kept. */
  failedAfterMs?: number;
}

/** Every entry a step name and a duration: a result or failure read back (from history, by the worker) is checked. */
export function isRanList(ran: unknown): ran is StepRunEntry[] {
  return (
    Array.isArray(ran) &&
    ran.every((e: Partial<StepRunEntry> | null) => typeof e?.name === 'string' && Number.isFinite(e.durationMs))
  );
}

export function isStepRunResult(value: unknown): value is StepRunResult {
  const v = value as Partial<StepRunResult> | null;
  if (typeof v !== 'object' || v === null || !isRanList(v.ran)) return false;
  return v.handedOver === null || typeof v.handedOver?.name === 'string';
}

export function isStepRunFailure(value: unknown): value is StepRunFailure {
  const v = value as Partial<StepRunFailure> | null;
  return typeof v === 'object' && v !== null && isRanList(v.ran) && typeof v.failedStep?.name === 'string';
}

/** The step a run's failure names (its StepRunFailure detail among the failure's details); null for a step's own. */
export function failedStepOfRun(details: readonly unknown[] | null | undefined): string | null {
  for (const detail of details ?? []) {
    const failed = isJsonObject(detail) && isJsonObject(detail['failedStep']) ? detail['failedStep']['name'] : null;
    if (typeof failed === 'string') return failed;
  }
  return null;
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
    ...(call.carryAudits?.length ? { carryAudits: call.carryAudits, carryKey: call.carryKey } : {}),
    ...(call.stepTimings ? { stepTimings: call.stepTimings } : {}),
  };
}

/** The step whose retry policy and timeout a RegularSteps run takes: its lead. */
export function runLead(input: StepRunInput): StepName {
  return input.steps[0]?.name ?? 'RegularSteps';
}

/** The first step's input: the run's session plus what it carries (decisions, carried rows). */
export function firstStepInput(input: StepRunInput, step: PlannedStep): StepInput {
  return { turn: input.turn, session: input.session, callKey: step.callKey, reply: 'patch', ...carriedIn(input) };
}

/** What a run's first step carries in, and a handed-over first step takes on to its regular activity. */
export type CarriedIn = Pick<StepInput, 'decisions' | 'carryAudits' | 'carryKey'>;

/** The driver decisions and carried rows a run's first step records first; empty ones are left out. */
function carriedIn(input: StepRunInput): CarriedIn {
  const carried: CarriedIn = {};
  if (input.decisions?.length) carried.decisions = input.decisions;
  if (input.carryAudits?.length) {
    carried.carryAudits = input.carryAudits;
    if (input.carryKey !== undefined) carried.carryKey = input.carryKey;
  }
  return carried;
}

/** What a run already settled for a step the driver now asks for. */
export type RunAnswer =
  | { kind: 'ran'; result: StepResult }
  /** The step reached the LLM or consumer code: it runs as a regular activity, with what the run carried if it was first. */
  | { kind: 'handedOver'; reason: string; carried: CarriedIn };

/**
 * A run's result, handed back one step at a time: the driver still asks for every step, in the
 * order it planned them, and the step runner (core/turn/step-runner.ts) answers the run's steps
 * from here.
 */
export class StepRunResults {
  private ran: StepRunEntry[] = [];
  private handedOver: (HandedOverStep & { carried: CarriedIn }) | null = null;

  /** Holds a run's result; a first step handed over carries what the run was to record first. */
  hold(result: StepRunResult, input: StepRunInput): void {
    this.ran = [...result.ran];
    const handed = result.handedOver;
    if (!handed) {
      this.handedOver = null;
      return;
    }
    this.handedOver = { ...handed, carried: result.ran.length === 0 ? carriedIn(input) : {} };
  }

  /** The run's answer for this step; null when no run covered it. */
  take(step: PlannedStep): RunAnswer | null {
    const first = this.ran[0];
    if (first) {
      expectStep(first, step);
      this.ran.shift();
      return { kind: 'ran', result: { ...first.result, durationMs: first.durationMs } };
    }
    const handed = this.handedOver;
    if (!handed) return null;
    expectStep(handed, step);
    this.handedOver = null;
    return { kind: 'handedOver', reason: handed.reason, carried: handed.carried };
  }
}

/** The driver asks for steps in the order it planned them; anything else is a bug, not a retryable failure. */
function expectStep(held: PlannedStep, asked: PlannedStep): void {
  if (held.name !== asked.name || held.callKey !== asked.callKey) {
    throw new Error(`step run out of order: holds ${held.callKey} (${held.name}), asked for ${asked.callKey}`);
  }
}

/**
 * After a stop or a direct tool call the driver leaves the run's path, and after an McpPrepare whose
 * plan runs the planner loop it goes to the planner: the run ends there. An McpPrepare that skips the
 * loop leaves the driver on the path it announced (the steps after the MCP step).
 */
export function endsRun(result: StepResult & { plan?: { run: boolean } }): boolean {
  return result.stop !== undefined || result.directToolCall !== undefined || result.plan?.run === true;
}

/** The run led by `first`: it and the planned steps right after it that join runs (local or local first). */
export function stepRunFrom(
  first: PlannedStep,
  next: readonly PlannedStep[],
  joins: (name: RunStepName) => boolean
): PlannedStep[] {
  const run = [first];
  for (const step of next) {
    if (!joins(step.name)) break;
    run.push(step);
  }
  return run;
}

/**
 * Temporal refuses user metadata summaries over 400 bytes; the longest run (the 17 steps before
 * the MCP step) takes ~300, so every run lists its steps by name, with room to spare.
 */
const SUMMARY_MAX_CHARS = 360;

/** `head` then the steps' names, within Temporal's summary limit; a cut keeps the last name and the count. */
function boundedSummary(head: string, steps: readonly PlannedStep[]): string {
  const all = `${head}${steps.map((s) => s.name).join(', ')}`;
  if (all.length <= SUMMARY_MAX_CHARS) return all;
  const last = steps[steps.length - 1]?.name ?? '';
  return `${all.slice(0, SUMMARY_MAX_CHARS - last.length - 24)} … ${last} (${steps.length} steps)`;
}

/** A local run's summary in the Temporal UI: every step of it, by name, in order. */
export function runSummary(steps: readonly PlannedStep[]): string {
  return boundedSummary('LocalSteps: ', steps);
}

/** A regular run's summary: its lead's own summary (`DialogueAct: calls the LLM (DA)`), then the steps after it. */
export function regularRunSummary(leadSummary: string, steps: readonly PlannedStep[]): string {
  const followers = steps.slice(1);
  return followers.length === 0 ? leadSummary : boundedSummary(`${leadSummary}; then `, followers);
}

/** A handed-over step's summary, kept short (the Web UI truncates long ones): "DialogueAct: calls the LLM (DA)". */
export function handOverSummary(summary: string, name: string, reason: string): string {
  const why = reason.startsWith(`${name} `) ? reason.slice(name.length + 1) : reason;
  return `${summary}: ${why}`;
}

/**
 * The steps of a run with their start and end, timed back from the run's end by the durations they
 * took: a run records only its own end (a marker's completion, an activity's close).
 */
export function timedBackFrom<S extends { durationMs: number }>(
  steps: readonly S[],
  endMs: number
): { step: S; startMs: number; endMs: number }[] {
  let end = endMs;
  const timed = [...steps].reverse().map((step) => {
    const span = { step, startMs: end - step.durationMs, endMs: end };
    end = span.startMs;
    return span;
  });
  return timed.reverse();
}
