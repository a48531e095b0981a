import type { JsonObject } from '../json';
import { AuditStage } from './payloads';
import { parseAudit, unreadableAuditText, type ParsedAudit, type ReadBackPayloads } from './read';

export interface TraceStage {
  auditId: number;
  /** The run of the turn that wrote the row (null: no run's), as the audit rows name it. */
  runId: string | null;
  stage: string;
  createdAt: string;
  payload: JsonObject;
}

export interface TraceStep {
  step: string;
  stepClass: string;
  turnNumber: number | null;
  /**
   * The run of the turn the step ran in: one turn number has several runs when a failed turn was retried or a new
   * message took its number, and each run's steps are frames of their own.
   */
  runId: string | null;
  status: 'RUNNING' | 'OK' | 'ERROR';
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  error: { type: string | null; message: string | null } | null;
  stages: TraceStage[];
}

export interface ConversationTrace {
  conversationId: string;
  steps: TraceStep[];
  stages: TraceStage[];
}

export interface TraceRow extends TraceStage {
  turnNumber: number | null;
}

type FramePayload = ReadBackPayloads[typeof AuditStage.StepEnter];

function openFrame(row: TraceRow, payload: FramePayload): TraceStep {
  return {
    step: payload.step,
    stepClass: payload.stepClass ?? '',
    turnNumber: row.turnNumber,
    runId: row.runId,
    status: 'RUNNING',
    startedAt: row.createdAt,
    endedAt: null,
    durationMs: null,
    error: null,
    stages: [],
  };
}

function closeFrame(frame: TraceStep, row: TraceRow, exit: ParsedExit): void {
  const failed = exit.stage === AuditStage.StepError;
  frame.status = failed ? 'ERROR' : 'OK';
  frame.endedAt = row.createdAt;
  frame.durationMs = exit.payload.durationMs ?? null;
  if (exit.stage === AuditStage.StepError) {
    frame.error = { type: exit.payload.errorType ?? null, message: exit.payload.errorMessage ?? null };
  }
}

type ParsedExit = Extract<ParsedAudit, { stage: typeof AuditStage.StepExit | typeof AuditStage.StepError }>;

const FRAME_STAGES: ReadonlySet<string> = new Set([AuditStage.StepEnter, AuditStage.StepExit, AuditStage.StepError]);

/** A frame row that cannot be read: a failed step of its own, so the trace says so where it happened. */
function unreadableFrame(row: TraceRow, problem: string): TraceStep {
  const step = unreadableAuditText({ stage: row.stage, problem });
  const frame = { ...openFrame(row, { step }), status: 'ERROR' as const, endedAt: row.createdAt };
  return { ...frame, error: { type: UNREADABLE_AUDIT_ROW, message: problem } };
}

/** The error type of a frame that stands for a row the trace could not read. */
export const UNREADABLE_AUDIT_ROW = 'UNREADABLE_AUDIT_ROW';

/** Whether a frame is of the run (and turn) that wrote a row. */
const sameRun = (frame: TraceStep, row: TraceRow) => frame.runId === row.runId && frame.turnNumber === row.turnNumber;

function lastIndexWhere<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i -= 1) if (test(items[i] as T)) return i;
  return -1;
}

function closeOpenFrame(steps: TraceStep[], open: TraceStep[], row: TraceRow, exit: ParsedExit): void {
  const name = exit.payload.step;
  // A frame of the same step and run: another run of the turn (a retry, a new message taking its number) never
  // closes a frame an earlier run left open.
  const ofStep = (f: TraceStep) => f.step === name && sameRun(f, row);
  const index = lastIndexWhere(open, ofStep);
  if (index >= 0) closeFrame(open.splice(index, 1)[0] as TraceStep, row, exit);
  // An exit with no open frame is a retried attempt succeeding after a STEP_ERROR: the step's
  // latest frame takes the final outcome.
  else if (exit.stage === AuditStage.StepExit) {
    const last = steps.filter(ofStep).at(-1);
    if (last) closeFrame(last, row, exit);
  }
}

/**
 * Groups a conversation's audit rows into step frames (reference §9.3): STEP_ENTER opens a frame,
 * STEP_EXIT / STEP_ERROR closes the most recent open frame of the same step, and every other stage
 * belongs to the innermost open frame of its run. Rows outside any frame appear only in the flat list. Every frame and
 * stage names its run: the rows of a failed run and of the run that took its turn number afterwards never share a
 * frame.
 */
export function buildTrace(conversationId: string, rows: readonly TraceRow[]): ConversationTrace {
  const steps: TraceStep[] = [];
  const open: TraceStep[] = [];
  const stages: TraceStage[] = [];
  for (const row of rows) {
    const stage: TraceStage = {
      auditId: row.auditId,
      runId: row.runId,
      stage: row.stage,
      createdAt: row.createdAt,
      payload: row.payload,
    };
    stages.push(stage);
    const parsed = parseAudit(row);
    if (parsed.kind === 'unreadable' && FRAME_STAGES.has(row.stage)) steps.push(unreadableFrame(row, parsed.problem));
    else if (parsed.stage === AuditStage.StepEnter && parsed.kind === 'read') {
      const frame = openFrame(row, parsed.payload);
      steps.push(frame);
      open.push(frame);
    } else if (
      (parsed.stage === AuditStage.StepExit || parsed.stage === AuditStage.StepError) &&
      parsed.kind === 'read'
    ) {
      closeOpenFrame(steps, open, row, parsed);
    } else {
      open[lastIndexWhere(open, (f) => sameRun(f, row))]?.stages.push(stage);
    }
  }
  return { conversationId, steps, stages };
}
