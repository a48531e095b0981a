import type { JsonObject } from '../json';

export interface TraceStage {
  auditId: number;
  stage: string;
  createdAt: string;
  payload: JsonObject;
}

export interface TraceStep {
  step: string;
  stepClass: string;
  turnNumber: number | null;
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

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function openFrame(row: TraceRow): TraceStep {
  return {
    step: str(row.payload['step']) ?? 'unknown',
    stepClass: str(row.payload['stepClass']) ?? '',
    turnNumber: row.turnNumber,
    status: 'RUNNING',
    startedAt: row.createdAt,
    endedAt: null,
    durationMs: null,
    error: null,
    stages: [],
  };
}

function closeFrame(frame: TraceStep, row: TraceRow): void {
  const failed = row.stage === 'STEP_ERROR';
  frame.status = failed ? 'ERROR' : 'OK';
  frame.endedAt = row.createdAt;
  const duration = row.payload['durationMs'];
  frame.durationMs = typeof duration === 'number' ? duration : null;
  if (failed) frame.error = { type: str(row.payload['errorType']), message: str(row.payload['errorMessage']) };
}

/**
 * Groups a conversation's audit rows into step frames (reference §9.3): STEP_ENTER opens a frame,
 * STEP_EXIT / STEP_ERROR closes the most recent open frame of the same step, and every other stage
 * belongs to the innermost open frame. Rows outside any frame appear only in the flat list.
 */
export function buildTrace(conversationId: string, rows: readonly TraceRow[]): ConversationTrace {
  const steps: TraceStep[] = [];
  const open: TraceStep[] = [];
  const stages: TraceStage[] = [];
  for (const row of rows) {
    const stage: TraceStage = {
      auditId: row.auditId,
      stage: row.stage,
      createdAt: row.createdAt,
      payload: row.payload,
    };
    stages.push(stage);
    if (row.stage === 'STEP_ENTER') {
      const frame = openFrame(row);
      steps.push(frame);
      open.push(frame);
    } else if (row.stage === 'STEP_EXIT' || row.stage === 'STEP_ERROR') {
      const name = str(row.payload['step']);
      const index = open.map((f) => f.step).lastIndexOf(name ?? '');
      if (index >= 0) closeFrame(open.splice(index, 1)[0] as TraceStep, row);
      // An exit with no open frame is a retried attempt succeeding after a STEP_ERROR: the step's
      // latest frame takes the final outcome.
      else if (row.stage === 'STEP_EXIT') {
        const last = steps.filter((f) => f.step === name).at(-1);
        if (last) closeFrame(last, row);
      }
    } else {
      open.at(-1)?.stages.push(stage);
    }
  }
  return { conversationId, steps, stages };
}
