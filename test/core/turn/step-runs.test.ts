import { PIPELINE_STEPS_BEFORE_MCP } from '../../../core/turn/contracts';
import {
  endsRun,
  firstStepInput,
  regularRunSummary,
  stepRunFrom,
  timedBackFrom,
  runSummary,
  StepRunResults,
  type PlannedStep,
  type RunStepName,
  type StepRunInput,
} from '../../../core/turn/step-runs';
import { blankSession } from '../../../core/turn/session-factory';

const planned = (...names: RunStepName[]): PlannedStep[] =>
  names.map((name, i) => ({ name, callKey: `${String(i + 1).padStart(2, '0')}-${name}` }));
const notRegular = (name: RunStepName) => name !== 'PersistConversation' && name !== 'DialogueAct';

describe('step runs (core/turn/step-runs.ts)', () => {
  it('takes the steps after its lead that join runs, up to the first that does not', () => {
    const [first, ...next] = planned('Guardrail', 'IntentResolution', 'DialogueAct', 'Memory');
    const run = stepRunFrom(first!, next, notRegular);
    expect(run.map((s) => s.name)).toEqual(['Guardrail', 'IntentResolution']);
    expect(run[1]).toBe(next[0]);
  });

  it('is led by any step, a regular one too, and is the lead alone when nothing joins after it', () => {
    const [persist, ...rest] = planned('PersistConversation', 'PipelineEnd');
    expect(stepRunFrom(persist!, rest, notRegular)).toEqual([persist, rest[0]]);
    const [dialogueAct, ...after] = planned('DialogueAct', 'PersistConversation');
    expect(stepRunFrom(dialogueAct!, after, notRegular)).toEqual([dialogueAct]);
    const [end] = planned('PipelineEnd');
    expect(stepRunFrom(end!, [], notRegular)).toEqual([end]);
  });

  it('ends after an McpPrepare whose plan runs the planner loop, not after one that skips it', () => {
    const summary = { outcome: 'Continue' as const, intent: 'I', state: 'S', changed: [] };
    const plan = { skipReason: null, maxLoops: 5, tools: [], nextToolGuard: {} as never };
    expect(endsRun({ patch: {}, summary, plan: { ...plan, run: true } } as never)).toBe(true);
    expect(endsRun({ patch: {}, summary, plan: { ...plan, run: false } } as never)).toBe(false);
  });

  it('names its lead by its own summary in a regular run, then the steps after it', () => {
    const run = planned('DialogueAct', 'InteractionPolicy', 'Guardrail');
    expect(regularRunSummary('DialogueAct: calls the LLM (DA)', run)).toBe(
      'DialogueAct: calls the LLM (DA); then InteractionPolicy, Guardrail'
    );
    expect(regularRunSummary('PersistConversation', planned('PersistConversation'))).toBe('PersistConversation');
    const long = regularRunSummary(
      'DialogueAct: calls the LLM (DA)',
      planned('DialogueAct', ...PIPELINE_STEPS_BEFORE_MCP)
    );
    expect(Buffer.byteLength(JSON.stringify(long))).toBeLessThanOrEqual(400);
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

  it('takes McpPrepare in after the steps before the MCP step, and McpFinalize with the steps after it', () => {
    const [first, ...next] = planned('AutoAdvance', 'PendingAction', 'ToolOrchestration', 'McpPrepare');
    expect(stepRunFrom(first!, next, () => true).map((s) => s.name)).toEqual([
      'AutoAdvance',
      'PendingAction',
      'ToolOrchestration',
      'McpPrepare',
    ]);
    const [finalize, ...after] = planned('McpFinalize', 'Rules', 'ResponseResolution', 'Memory');
    expect(stepRunFrom(finalize!, after, (name) => name !== 'ResponseResolution')).toHaveLength(2);
  });

  it('gives what the run carried to a first step that was handed over, and nothing to a later one', () => {
    const turn: StepRunInput['turn'] = {
      conversationId: 'c',
      turnNumber: 1,
      turnId: 'turn-c-1',
      message: 'hi',
      inputParams: {},
      reset: false,
      requestContext: {},
      idempotencyKey: null,
      receivedAt: '2026-11-27T00:00:00.000Z',
    };
    const steps = planned('McpFinalize', 'Rules');
    const decisions = [{ seq: 2, decision: { kind: 'LOOP_LIMIT' as const, toolCode: null, reason: 'MAX' } }];
    const carryAudits = [{ stage: 'TOOL_FAILED', payload: {} }];
    const input: StepRunInput = { turn, session: blankSession(turn), steps, decisions, carryAudits, carryKey: 'k' };
    expect(firstStepInput(input, steps[0]!)).toMatchObject({ callKey: '01-McpFinalize', decisions, carryAudits });

    const first = new StepRunResults();
    first.hold({ ran: [], handedOver: { ...steps[0]!, reason: 'calls consumer code' } }, input);
    expect(first.take(steps[0]!)).toEqual({
      kind: 'handedOver',
      reason: 'calls consumer code',
      carried: { decisions, carryAudits, carryKey: 'k' },
    });

    const later = new StepRunResults();
    const summary = { outcome: 'Continue' as const, intent: 'I', state: 'S', changed: [] };
    const ran = [{ ...steps[0]!, result: { patch: {}, summary }, durationMs: 1 }];
    later.hold({ ran, handedOver: { ...steps[1]!, reason: 'calls the LLM' } }, input);
    expect(later.take(steps[0]!)?.kind).toBe('ran');
    expect(later.take(steps[1]!)).toEqual({ kind: 'handedOver', reason: 'calls the LLM', carried: {} });
  });

  it("times a run's steps back from its end by the durations they took", () => {
    const steps = [
      { name: 'a', durationMs: 5 },
      { name: 'b', durationMs: 0 },
      { name: 'c', durationMs: 3 },
    ];
    expect(timedBackFrom(steps, 100).map(({ step, startMs, endMs }) => [step.name, startMs, endMs])).toEqual([
      ['a', 92, 97],
      ['b', 97, 97],
      ['c', 97, 100],
    ]);
    expect(timedBackFrom([], 100)).toEqual([]);
  });
});
