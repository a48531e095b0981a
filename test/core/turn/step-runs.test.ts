import { PIPELINE_STEPS_BEFORE_MCP, type PipelineStepName } from '../../../core/turn/contracts';
import { endsRun, localRun, runSummary, type PlannedStep } from '../../../core/turn/step-runs';

const planned = (...names: PipelineStepName[]): PlannedStep[] =>
  names.map((name, i) => ({ name, callKey: `${String(i + 1).padStart(2, '0')}-${name}` }));
const notRegular = (name: PipelineStepName) => name !== 'PersistConversation' && name !== 'DialogueAct';

describe('step runs (core/turn/step-runs.ts)', () => {
  it('takes the local steps after the first, up to the first that is not local', () => {
    const [first, ...next] = planned('Guardrail', 'IntentResolution', 'DialogueAct', 'Memory');
    const run = localRun(first!, next, notRegular);
    expect(run.map((s) => s.name)).toEqual(['Guardrail', 'IntentResolution']);
    expect(run[1]).toBe(next[0]);
  });

  it('is the first step alone when it is not local, or nothing local follows it', () => {
    const [persist, ...rest] = planned('PersistConversation', 'PipelineEnd');
    expect(localRun(persist!, rest, notRegular)).toEqual([persist]);
    const [end] = planned('PipelineEnd');
    expect(localRun(end!, [], notRegular)).toEqual([end]);
  });

  it('ends after a stop or a direct tool call, not after a plain answer', () => {
    const summary = { outcome: 'Continue' as const, intent: 'I', state: 'S', changed: [] };
    expect(endsRun({ patch: {}, summary })).toBe(false);
    expect(
      endsRun({ patch: {}, summary, stop: { reason: 'POLICY_BLOCK', payload: { type: 'TEXT', value: 'no' } } })
    ).toBe(true);
    const tool = { toolCode: 't', args: {}, callIndex: 1, idempotencyKey: 'k' };
    expect(endsRun({ patch: {}, summary, directToolCall: { call: tool, tool: {} as never } })).toBe(true);
  });

  it('names every step of a run in its summary, and stays short enough for Temporal', () => {
    expect(runSummary(planned('Rules', 'ResponseResolution', 'Memory'))).toBe(
      'LocalSteps: Rules, ResponseResolution, Memory'
    );
    const before = planned(...PIPELINE_STEPS_BEFORE_MCP);
    expect(runSummary(before)).toBe(`LocalSteps: ${PIPELINE_STEPS_BEFORE_MCP.join(', ')}`);
    const long = planned(...PIPELINE_STEPS_BEFORE_MCP, ...PIPELINE_STEPS_BEFORE_MCP);
    const summary = runSummary(long);
    expect(Buffer.byteLength(JSON.stringify(summary))).toBeLessThanOrEqual(400);
    expect(summary).toMatch(/^LocalSteps: LoadOrCreateConversation, .* … ToolOrchestration \(34 steps\)$/);
  });
});
