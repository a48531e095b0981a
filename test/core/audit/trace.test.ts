import { buildTrace, type TraceRow } from '../../../core/audit/trace';

let id = 0;
function row(stage: string, payload: Record<string, unknown> = {}): TraceRow {
  id += 1;
  return {
    auditId: id,
    stage,
    createdAt: `2026-01-01T00:00:${String(id).padStart(2, '0')}Z`,
    payload: payload as never,
    turnNumber: 1,
    runId: null,
  };
}

describe('buildTrace (§9.3)', () => {
  it('groups stages into step frames and keeps the flat list', () => {
    const rows = [
      row('STEP_ENTER', { step: 'AuditUserInput', stepClass: 'AuditUserInputStep' }),
      row('USER_INPUT', { text: 'hi' }),
      row('STEP_EXIT', { step: 'AuditUserInput', durationMs: 3 }),
      row('STEP_ENTER', { step: 'ResponseResolution' }),
      row('RESPONSE_MAPPING_NOT_FOUND'),
      row('STEP_ERROR', { step: 'ResponseResolution', errorType: 'RESPONSE_MAPPING_NOT_FOUND', errorMessage: 'none' }),
      row('ENGINE_KNOWN_FAILURE'),
    ];
    const trace = buildTrace('c-1', rows);
    expect(trace.stages.map((s) => s.stage)).toEqual(rows.map((r) => r.stage));
    expect(trace.steps).toEqual([
      expect.objectContaining({
        step: 'AuditUserInput',
        stepClass: 'AuditUserInputStep',
        status: 'OK',
        durationMs: 3,
        stages: [expect.objectContaining({ stage: 'USER_INPUT' })],
      }),
      expect.objectContaining({
        step: 'ResponseResolution',
        status: 'ERROR',
        error: { type: 'RESPONSE_MAPPING_NOT_FOUND', message: 'none' },
        stages: [expect.objectContaining({ stage: 'RESPONSE_MAPPING_NOT_FOUND' })],
      }),
    ]);
  });

  it('marks a step OK when a retried attempt exits after an earlier STEP_ERROR', () => {
    const trace = buildTrace('c-1', [
      row('STEP_ENTER', { step: 'DialogueAct' }),
      row('STEP_ERROR', { step: 'DialogueAct', errorType: 'LLM_CALL_FAILED' }),
      row('STEP_EXIT', { step: 'DialogueAct', durationMs: 9 }),
    ]);
    expect(trace.steps).toHaveLength(1);
    expect(trace.steps[0]).toMatchObject({ status: 'OK', durationMs: 9 });
  });

  it('closes nested frames by step name, innermost first', () => {
    const trace = buildTrace('c-1', [
      row('STEP_ENTER', { step: 'Outer' }),
      row('STEP_ENTER', { step: 'Inner' }),
      row('X'),
      row('STEP_EXIT', { step: 'Inner' }),
      row('Y'),
      row('STEP_EXIT', { step: 'Outer' }),
    ]);
    expect(trace.steps.map((s) => [s.step, s.status, s.stages.map((x) => x.stage)])).toEqual([
      ['Outer', 'OK', ['Y']],
      ['Inner', 'OK', ['X']],
    ]);
  });

  it("keeps each run of a turn in frames of its own: a later run never closes or fills an earlier run's frame", () => {
    const ofRun = (runId: string, stage: string, payload: Record<string, unknown> = {}) => ({
      ...row(stage, payload),
      runId,
    });
    // The failed run's step run never wrote its exit (its held rows were lost); the next message's run follows.
    const trace = buildTrace('c-1', [
      ofRun('run-1', 'STEP_ENTER', { step: 'LoadOrCreateConversation' }),
      ofRun('run-1', 'STEP_ENTER', { step: 'ResponseResolution' }),
      ofRun('run-2', 'STEP_ENTER', { step: 'LoadOrCreateConversation' }),
      ofRun('run-2', 'X'),
      ofRun('run-2', 'STEP_EXIT', { step: 'LoadOrCreateConversation', durationMs: 2 }),
      ofRun('run-2', 'STEP_EXIT', { step: 'ResponseResolution', durationMs: 3 }),
    ]);
    expect(trace.steps.map((s) => [s.runId, s.step, s.status, s.stages.map((x) => x.stage)])).toEqual([
      ['run-1', 'LoadOrCreateConversation', 'RUNNING', []],
      ['run-1', 'ResponseResolution', 'RUNNING', []],
      ['run-2', 'LoadOrCreateConversation', 'OK', ['X']],
    ]);
    expect(trace.stages.map((s) => s.runId)).toEqual(['run-1', 'run-1', 'run-2', 'run-2', 'run-2', 'run-2']);
  });
});
